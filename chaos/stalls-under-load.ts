/**
 * Redis, then ClickHouse, stopped with SIGSTOP for 10 s while clients call recommend, SBT
 * lists and tags: every answer must be 200 or 503/10503 (retry later), none a timeout or
 * another error, and the API must serve normally again soon after SIGCONT.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosStack, ServerName } from './chaos-stack.ts';
import { OK, outcomes, startLoad, type Answer } from './client-load.ts';
import type { ScenarioRow } from './scenario-row.ts';
import type { ServedWorld } from './served-world.ts';

const STALL_MS = 10_000;
const BEFORE_MS = 3_000;
const AFTER_MS = 10_000;
/** After SIGCONT, answers to requests sent later than this must all be 200. */
const RECOVERY_LIMIT_MS = 5_000;
const ALLOWED = new Set([OK, '503/10503']);

export async function stallUnderLoad(stack: ChaosStack, world: ServedWorld, server: ServerName, rate: number): Promise<ScenarioRow> {
  const row: ScenarioRow = { scenario: `SIGSTOP ${server === 'redis' ? 'Redis' : 'ClickHouse'} 10 s under load`, notes: [`${rate} requests/s`], problems: [] };
  const load = startLoad(world.apiUrl, world.requests, rate);
  await sleep(BEFORE_MS);
  const stoppedAt = Date.now();
  const resumedAt = await stack.stall(server, STALL_MS);
  await sleep(AFTER_MS);
  const answers = await load.stop();
  row.codes = outcomes(answers);
  const verdict = judgeStall(answers, stoppedAt, resumedAt);
  row.problems.push(...verdict.problems);
  row.notes.push(...verdict.notes);
  return row;
}

/** The verdict on a stall's answers: which were not allowed, and how long after SIGCONT errors went on. */
export function judgeStall(answers: Answer[], stoppedAt: number, resumedAt: number): Pick<ScenarioRow, 'notes' | 'problems'> & { recoveryMs: number } {
  const problems: string[] = [];
  const notes: string[] = [];
  const before = answers.filter((a) => a.answeredAt < stoppedAt);
  const notOkBefore = before.filter((a) => a.outcome !== OK);
  if (notOkBefore.length > 0) problems.push(`${notOkBefore.length} of ${before.length} answers before the stall were not 200 (${Object.keys(outcomes(notOkBefore)).join(', ')})`);
  const forbidden = answers.filter((a) => !ALLOWED.has(a.outcome));
  for (const [outcome, n] of Object.entries(outcomes(forbidden))) {
    const routes = [...new Set(forbidden.filter((a) => a.outcome === outcome).map((a) => a.route))].join(', ');
    problems.push(`${n} answers ${outcome} (${routes}); only 200 and 503/10503 are allowed`);
  }
  const lastError = Math.max(resumedAt, ...answers.filter((a) => a.outcome !== OK).map((a) => a.answeredAt));
  const recoveryMs = lastError - resumedAt;
  notes.push(`errors ended ${(recoveryMs / 1000).toFixed(1)} s after SIGCONT`);
  const late = answers.filter((a) => a.sentAt > resumedAt + RECOVERY_LIMIT_MS && a.outcome !== OK);
  if (late.length > 0) problems.push(`${late.length} requests sent over ${RECOVERY_LIMIT_MS / 1000} s after SIGCONT still failed`);
  const afterResume = answers.filter((a) => a.sentAt > resumedAt + RECOVERY_LIMIT_MS);
  if (afterResume.length === 0) problems.push('no request was answered after the recovery window: the load stopped');
  for (const [outcome, n] of Object.entries(outcomes(answers.filter((a) => a.outcome !== OK)))) {
    const byRoute = outcomes(answers.filter((a) => a.outcome === outcome).map((a) => ({ ...a, outcome: a.route })));
    notes.push(`${outcome} x${n}: ${Object.entries(byRoute).map(([route, count]) => `${route} ${count}`).join(', ')}`);
  }
  const during = answers.filter((a) => a.sentAt >= stoppedAt && a.sentAt < resumedAt);
  const slowest = (route: string) => Math.max(0, ...during.filter((a) => a.route === route).map((a) => a.answeredAt - a.sentAt));
  const routes = [...new Set(during.map((a) => a.route))];
  notes.push(
    `${answers.length} answers; ${during.length} to requests sent during the stall, the slowest after ${routes.map((r) => `${(slowest(r) / 1000).toFixed(1)} s (${r})`).join(', ')}`,
  );
  return { problems, notes, recoveryMs };
}
