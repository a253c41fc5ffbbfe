/**
 * One custodian of the local custody network: `soulgraph custodian serve` (or
 * `node --import tsx custodian/server.ts`), with CUSTODIAN_SHARE_FILE and CUSTODIAN_PORT.
 * It holds one share and nothing else: no ClickHouse, no Redis, no other node's key.
 */
import type { Server } from 'node:http';
import { loadConfig, type Config } from '../shared/config.ts';
import { readShareFile } from '../shared/custody/key-files.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { Shutdown } from '../shared/shutdown.ts';
import { createSignatureClient } from '../shared/siwe/signature-client.ts';
import { createCustodianApp } from './app.ts';

export interface RunningCustodian {
  port: number;
  index: number;
  close(): Promise<void>;
}

export async function startCustodian(config: Config, logger: Logger, port = config.CUSTODIAN_PORT): Promise<RunningCustodian> {
  if (!config.CUSTODIAN_SHARE_FILE) throw new Error('CUSTODIAN_SHARE_FILE is not set: a custodian serves exactly one share file');
  const share = await readShareFile(config.CUSTODIAN_SHARE_FILE);
  const app = createCustodianApp({ config, logger, share, publicClient: createSignatureClient(config) });
  const server: Server = app.listen(port, '0.0.0.0');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  logger.info({ port: actualPort, index: share.index, threshold: share.threshold }, 'custodian listening');
  return {
    port: actualPort,
    index: share.index,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

export async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config, 'custodian');
  const shutdown = new Shutdown((line) => logger.info(line));
  shutdown.exitOnSignals();
  const custodian = await startCustodian(config, logger);
  shutdown.add('custodian', () => custodian.close());
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
