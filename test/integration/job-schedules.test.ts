/**
 * Schedules as code: the scheduler reconciles BullMQ's job schedulers with the declared
 * list (adds, updates, removes), and `soulgraph schedules` shows them with their next run.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_QUEUE, allQueueNames, ingestQueueName } from '../../shared/queues.ts';
import { redisConnection } from '../../shared/redis.ts';
import { listSchedules, reconcileSchedules, SCHEDULED_JOB_OPTIONS } from '../../pipeline/job-schedulers.ts';
import type { ScheduleDeclaration } from '../../pipeline/schedules.ts';
import { runSoulgraph } from '../support/child-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment({ COMPACT_CRON: '30 3 * * *' });
const connection = () => redisConnection(env.config, 'producer');
let maintenance: Queue;

const declaration = (id: string, cron: string, queue = MAINTENANCE_QUEUE): ScheduleDeclaration => ({
  id,
  queue,
  cron,
  jobName: 'compact-tables',
  data: { task: 'compact-tables' },
});

/** The next minute-resolution time after `from` at hh:mm UTC. */
function nextDailyUtc(hour: number, minute: number, from = new Date()): Date {
  const next = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), hour, minute));
  if (next <= from) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

beforeAll(() => {
  maintenance = new Queue(MAINTENANCE_QUEUE, { connection: connection(), prefix: env.config.QUEUE_PREFIX });
});
afterAll(async () => maintenance?.close());

describe('reconciling job schedulers', () => {
  it('adds every declared scheduler, with its cron in UTC, its payload and bounded history', async () => {
    const result = await reconcileSchedules(env.config, connection(), [declaration('nightly', '0 2 * * *'), declaration('hourly', '0 * * * *')], allQueueNames());
    expect(result.upserted.sort()).toEqual([`${MAINTENANCE_QUEUE}/hourly`, `${MAINTENANCE_QUEUE}/nightly`]);
    const [nightly] = (await maintenance.getJobSchedulers()).filter((s) => s.key === 'nightly');
    expect(nightly).toMatchObject({ pattern: '0 2 * * *', tz: 'UTC', template: { data: { task: 'compact-tables' } } });
    expect(nightly!.template?.opts).toMatchObject({ removeOnFail: SCHEDULED_JOB_OPTIONS.removeOnFail, removeOnComplete: SCHEDULED_JOB_OPTIONS.removeOnComplete });
    expect(nightly!.next).toBe(nextDailyUtc(2, 0).getTime());
  });

  it('updates a scheduler whose cron changed', async () => {
    await reconcileSchedules(env.config, connection(), [declaration('nightly', '15 1 * * *'), declaration('hourly', '0 * * * *')], allQueueNames());
    const states = await listSchedules(env.config, connection(), allQueueNames());
    expect(states.find((s) => s.id === 'nightly')).toMatchObject({ cron: '15 1 * * *', next: nextDailyUtc(1, 15) });
  });

  it('removes a scheduler no longer declared, on any queue of the pipeline', async () => {
    const other = new Queue(ingestQueueName('follows'), { connection: connection(), prefix: env.config.QUEUE_PREFIX });
    await other.upsertJobScheduler('left-over', { pattern: '0 0 * * *', tz: 'UTC' });
    await other.close();
    const result = await reconcileSchedules(env.config, connection(), [declaration('nightly', '15 1 * * *')], allQueueNames());
    expect(result.removed.sort()).toEqual([`${ingestQueueName('follows')}/left-over`, `${MAINTENANCE_QUEUE}/hourly`]);
    const states = await listSchedules(env.config, connection(), allQueueNames());
    expect(states.map((s) => `${s.queue}/${s.id}`)).toEqual([`${MAINTENANCE_QUEUE}/nightly`]);
  });
});

describe('soulgraph schedules and soulgraph scheduler', () => {
  it('lists a scheduler not declared in the code as due for removal, and the declared ones as not registered yet', async () => {
    const { code, output } = await runSoulgraph(['schedules'], env.env);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^nightly\s+maintenance\s+15 1 \* \* \*\s+\S+Z\s+not declared: removed when the scheduler starts$/m);
    expect(output).toMatch(/^compact-raw-tables\s+maintenance\s+30 3 \* \* \*\s+-\s+declared, not registered/m);
    expect(output).toMatch(/^nightly-materialize\s+materialize\s+0 2 \* \* \*\s+-\s+declared, not registered/m);
  });

  it('the scheduler process reconciles on start: the declared schedulers appear with their next run, the other disappears', async () => {
    const reconcile = await runSoulgraph(['scheduler', '--once'], env.env);
    expect(reconcile.code, reconcile.output).toBe(0);
    const { code, output } = await runSoulgraph(['schedules'], env.env);
    expect(code, output).toBe(0);
    expect(output).toMatch(new RegExp(`^compact-raw-tables\\s+maintenance\\s+30 3 \\* \\* \\*\\s+${nextDailyUtc(3, 30).toISOString()}\\s+registered$`, 'm'));
    expect(output).toMatch(new RegExp(`^nightly-materialize\\s+materialize\\s+0 2 \\* \\* \\*\\s+${nextDailyUtc(2, 0).toISOString()}\\s+registered$`, 'm'));
    expect(output).not.toMatch(/^nightly\s/m);
  });
});
