/**
 * Clients calling the API while a fault is done: requests sent at a steady rate whether or
 * not earlier ones were answered (as many independent apps would: a stalled server piles
 * requests up rather than slowing the clients down), each answer recorded with its route,
 * when it was sent and answered, and what it was ("200/0", "503/10503", "timeout", ...). A
 * request gets CLIENT_TIMEOUT_MS, like an impatient app; longer counts as "timeout".
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ApiRequest {
  route: string;
  path: string;
  headers: Record<string, string>;
}

export interface Answer {
  route: string;
  sentAt: number;
  answeredAt: number;
  /** "status/code" of the envelope, or "timeout" / "socket error" / "<status>/not-envelope". */
  outcome: string;
  /** The response body, for answers a check reads (a recommend page's cursor). */
  body?: unknown;
}

export const OK = '200/0';
const CLIENT_TIMEOUT_MS = 15_000;

export interface RunningLoad {
  /** Stops sending, waits for the answers in flight; every answer, in the order they came. */
  stop(): Promise<Answer[]>;
}

/** `rate` requests a second over `requests` in turn, until stopped. */
export function startLoad(baseUrl: string, requests: ApiRequest[], rate: number): RunningLoad {
  const answers: Answer[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  const sending = (async () => {
    const started = Date.now();
    for (let sent = 0; !stopping; sent++) {
      const request = requests[sent % requests.length]!;
      const answered = call(baseUrl, request).then((answer) => {
        answers.push(answer);
        inFlight.delete(answered);
      });
      inFlight.add(answered);
      // Paced by the clock, not by the previous send: late ticks catch up.
      await sleep(Math.max(0, started + ((sent + 1) * 1000) / rate - Date.now()));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await sending;
      await Promise.all(inFlight);
      return answers;
    },
  };
}

export async function call(baseUrl: string, request: ApiRequest): Promise<Answer> {
  const sentAt = Date.now();
  const answer = (outcome: string, body?: unknown): Answer => ({ route: request.route, sentAt, answeredAt: Date.now(), outcome, body });
  try {
    const response = await fetch(`${baseUrl}${request.path}`, { headers: request.headers, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const text = await response.text();
    try {
      const body = JSON.parse(text) as { code?: unknown };
      return typeof body.code === 'string' ? answer(`${response.status}/${body.code}`, body) : answer(`${response.status}/not-envelope`);
    } catch {
      return answer(`${response.status}/not-envelope`);
    }
  } catch (error) {
    const name = (error as Error).name;
    return answer(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'socket error');
  }
}

/** Answers counted by outcome. */
export function outcomes(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
  return counts;
}
