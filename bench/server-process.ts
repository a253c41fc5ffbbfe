/**
 * A server under bench in a child process of its own (`node --import tsx <flags> <entry>`):
 * a small, clean heap, not that of the bench process, which generated and ingested the world,
 * and no share in the bench's GC pauses. Both sides are here: the bench calls
 * startServerProcess, the entry (bench/api-server.ts, bench/bare-server.ts) serveUnderBench.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';

export interface ServerProcess {
  port: number;
  stop(): Promise<void>;
}

export async function startServerProcess(entry: URL, nodeFlags: string[], options: unknown): Promise<ServerProcess> {
  const child = fork(entry, [], { execArgv: ['--import', 'tsx', ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  child.send({ options });
  const [answer] = (await Promise.race([once(child, 'message'), exited.then(() => [{ failed: 'exited before listening' }])])) as [{ port?: number; failed?: string }];
  if (answer.port === undefined) throw new Error(`${entry.pathname}: ${answer.failed}`);
  return {
    port: answer.port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The child's side: starts the server with the bench's options, reports its port, and ends on SIGTERM or when the bench goes away. */
export function serveUnderBench(start: (options: unknown) => Promise<{ port: number; close(): Promise<void> }>): void {
  if (!process.send) throw new Error('a bench server runs as a child of the bench (bench/server-process.ts)');
  process.once('message', (message: { options: unknown }) => {
    start(message.options).then(
      (server) => {
        const stop = () => void server.close().finally(() => process.exit(0));
        process.once('SIGTERM', stop);
        process.once('disconnect', stop);
        process.send!({ port: server.port });
      },
      (error: unknown) => {
        process.send!({ failed: String(error) }, () => process.exit(1));
      },
    );
  });
}
