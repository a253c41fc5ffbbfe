import { describe, it, expect } from 'vitest';
import { Shutdown } from '../../shared/shutdown.ts';

function recorder() {
  const log: string[] = [];
  return { log, shutdown: new Shutdown((line) => log.push(line)) };
}

describe('Shutdown', () => {
  it('runs steps newest first', async () => {
    const { shutdown } = recorder();
    const order: string[] = [];
    shutdown.add('close connections', () => void order.push('close connections'));
    shutdown.add('finish work', async () => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('finish work');
    });
    shutdown.add('stop taking work', () => void order.push('stop taking work'));
    await shutdown.run('test');
    expect(order).toEqual(['stop taking work', 'finish work', 'close connections']);
  });

  it('says it has started from the moment run is called, so that exits from then on read as expected', async () => {
    const { shutdown } = recorder();
    let startedDuringStep: boolean | undefined;
    shutdown.add('step', () => void (startedDuringStep = shutdown.started));
    expect(shutdown.started).toBe(false);
    await shutdown.run('test');
    expect(startedDuringStep).toBe(true);
    expect(shutdown.started).toBe(true);
  });

  it('logs the reason first', async () => {
    const { log, shutdown } = recorder();
    await shutdown.run('SIGTERM');
    expect(log).toEqual(['shutting down (SIGTERM)']);
  });

  it('keeps running the other steps after one rejects or throws, and reports each failure', async () => {
    const { log, shutdown } = recorder();
    const ran: string[] = [];
    shutdown.add('first', () => void ran.push('first'));
    shutdown.add('throws', () => {
      throw new Error('boom');
    });
    shutdown.add('rejects', async () => {
      throw new Error('no connection');
    });
    shutdown.add('last', () => void ran.push('last'));
    await expect(shutdown.run('test')).resolves.toBeUndefined();
    expect(ran).toEqual(['last', 'first']);
    expect(log).toEqual([
      'shutting down (test)',
      'shutdown step "rejects" failed: no connection',
      'shutdown step "throws" failed: boom',
    ]);
  });

  it('abandons a step that exceeds its timeout, reports it and goes on', async () => {
    const { log, shutdown } = recorder();
    const ran: string[] = [];
    shutdown.add('after', () => void ran.push('after'));
    shutdown.add('hangs', () => new Promise<void>(() => {}));
    const started = Date.now();
    await shutdown.run('test', 50);
    const elapsed = Date.now() - started;
    expect(ran).toEqual(['after']);
    expect(log).toContain('shutdown step "hangs" failed: hangs did not finish within 50 ms');
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('does not wait out the timeout for a step that finishes in time', async () => {
    const { log, shutdown } = recorder();
    shutdown.add('quick', async () => {});
    const started = Date.now();
    await shutdown.run('test', 5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(log).toEqual(['shutting down (test)']);
  });

  it('runs the steps once when run is called twice, and both calls wait for the same run', async () => {
    const { log, shutdown } = recorder();
    let runs = 0;
    shutdown.add('count', async () => {
      await new Promise((r) => setTimeout(r, 5));
      runs++;
    });
    const first = shutdown.run('SIGINT');
    const second = shutdown.run('SIGTERM');
    expect(second).toBe(first);
    await Promise.all([first, second]);
    await shutdown.run('again');
    expect(runs).toBe(1);
    expect(log).toEqual(['shutting down (SIGINT)']);
  });

  it('runs nothing and succeeds with no steps', async () => {
    await expect(new Shutdown().run('test')).resolves.toBeUndefined();
  });
});
