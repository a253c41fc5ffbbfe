/**
 * A local server kept running like a process manager would: when it dies without being
 * asked to stop (a crash, kill -9, the OOM killer), it is started again on the same address
 * and data, after a pause that doubles with each failed attempt (1 s up to 30 s) and starts
 * over once the server has stayed up a minute. Each exit and restart is one log line.
 *
 * A server that shut down cleanly (exit code 0, or SIGINT/SIGTERM, as when Ctrl-C in a
 * terminal reaches the whole process group) was asked to: it is not started again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningService } from './running-service.ts';

export interface Restart {
  /** The new process. */
  pid: number;
  /** Restarts so far. */
  restarts: number;
  /** Why the previous process ended, e.g. "exited on SIGKILL". */
  reason: string;
  at: number;
}

export interface SupervisionOptions {
  log?: (line: string) => void;
  /** After each successful restart (the stack records the new pid). */
  onRestart?: (restart: Restart) => void | Promise<void>;
  /** Default 1 s; tests shorten it. */
  firstDelayMs?: number;
}

const MAX_DELAY_MS = 30_000;
const ASKED_TO_STOP = /exited with code 0$|exited on SIG(INT|TERM)$/;
const STABLE_MS = 60_000;

/** `service` under supervision; its stop() ends the supervision too. Servers without restart() are returned as they are. */
export function supervise(name: string, service: RunningService, options: SupervisionOptions = {}): RunningService {
  if (!service.exited || !service.restart) return service;
  const log = options.log ?? (() => {});
  const firstDelay = options.firstDelayMs ?? 1_000;
  let current = service;
  let stopping = false;
  let restarts = 0;

  const watch = (running: RunningService, startedAt: number) => {
    void running.exited!.then(async (reason) => {
      if (stopping) return;
      if (ASKED_TO_STOP.test(reason)) {
        log(`${name} (pid ${running.pid}) ${reason}: it was asked to stop, so it stays stopped`);
        return;
      }
      let delay = Date.now() - startedAt >= STABLE_MS ? firstDelay : Math.min(MAX_DELAY_MS, firstDelay * 2 ** Math.min(restarts, 5));
      for (;;) {
        log(`${name} (pid ${running.pid}) ${reason}: starting it again in ${delay / 1000} s`);
        await sleep(delay);
        if (stopping) return;
        try {
          current = await running.restart!();
          if (stopping) return await current.stop();
        } catch (error) {
          log(`${name} did not start again: ${(error as Error).message.split('\n')[0]}`);
          delay = Math.min(MAX_DELAY_MS, delay * 2);
          continue;
        }
        restarts++;
        log(`${name} running again on ${current.url} (pid ${current.pid}, restart ${restarts})`);
        await options.onRestart?.({ pid: current.pid, restarts, reason, at: Date.now() });
        watch(current, Date.now());
        return;
      }
    });
  };
  watch(service, Date.now());

  return {
    url: service.url,
    version: service.version,
    get pid() {
      return current.pid;
    },
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}
