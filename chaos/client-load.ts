/**
 * Clients calling the API while a fault is done: a few connections in a loop over the
 * requests given, each answer recorded with its route, when it was sent and answered, and
 * what it was ("200/0", "503/10503", "timeout", ...). A request gets CLIENT_TIMEOUT_MS, like
 * an impatient app; longer counts as "timeout".
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
  answers: Answer[];
  /** Stops sending, waits for the answers in flight. */
  stop(): Promise<Answer[]>;
}

export function startLoad(baseUrl: string, requests: ApiRequest[], options: { connections?: number; pauseMs?: number } = {}): RunningLoad {
  const answers: Answer[] = [];
  let stopping = false;
  let next = 0;
  const loop = async () => {
    while (!stopping) {
      const request = requests[next++ % requests.length]!;
      answers.push(await call(baseUrl, request));
      await sleep(options.pauseMs ?? 20);
    }
  };
  const loops = Array.from({ length: options.connections ?? 4 }, loop);
  return {
    answers,
    async stop() {
      stopping = true;
      await Promise.all(loops);
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
