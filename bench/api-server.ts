/**
 * The API under `npm run bench:api`, in a child process of its own
 * (bench/server-process.ts): startApi with the settings the bench sends it (the same
 * environment-style record the bench parsed its own config from), logging silenced as the
 * bench always ran it, on the API's CPUs when INGEST_CPUS splits the host (as `npm run api`).
 */
import { pino } from 'pino';
import { parseConfig } from '../shared/config.ts';
import { confineToSide } from '../shared/cpu-affinity.ts';
import { startApi } from '../api/server/server.ts';
import { serveUnderBench } from './server-process.ts';

export interface ApiServerOptions {
  /** Raw settings, as parseConfig takes them from the environment. */
  env: Record<string, string>;
}

serveUnderBench(async (options) => {
  const { env } = options as ApiServerOptions;
  const config = parseConfig(env);
  confineToSide('api', config.INGEST_CPUS);
  const api = await startApi(config, pino({ level: 'silent' }), 0);
  return { port: api.port, close: () => api.close() };
});
