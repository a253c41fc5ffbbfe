/**
 * `soulgraph custodian keygen` writes the local custody network's keys (docs/tags.md);
 * `soulgraph custodian serve` runs one custodian. The custodian's code is started by path,
 * never imported: the pipeline does not depend on it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig, type Config } from '../../shared/config.ts';
import { CustodyKeysExist, generateCustodyKeys } from '../../shared/custody/key-files.ts';
import { entryPointArgs } from '../../shared/process/entry-points.ts';
import { UsageError } from './usage-error.ts';

/** The custodian's entry point, from the repository root (shared/process/entry-points.ts). */
export const CUSTODIAN_SERVER = 'custodian/server.ts';
export const DEFAULT_NODES = 5;
export const DEFAULT_THRESHOLD = 3;

/** Where `soulgraph start` and keygen keep the local custodians' keys. */
export function custodyKeyDir(config: Pick<Config, 'CUSTODIAN_KEY_DIR' | 'DATA_DIR'>): string {
  return path.resolve(config.CUSTODIAN_KEY_DIR || path.join(config.DATA_DIR, 'custodians'));
}

export function custodianCommand(): Command {
  const custodian = new Command('custodian').description('The local custody network that guards tag decryption keys');
  custodian
    .command('keygen')
    .description('Split a fresh master key into one share file per custodian plus network.json; the master is never written')
    .option('--nodes <n>', 'custodians', String(DEFAULT_NODES))
    .option('--threshold <t>', 'shares needed to decrypt', String(DEFAULT_THRESHOLD))
    .option('--out <dir>', 'folder for the key files (default: CUSTODIAN_KEY_DIR or <DATA_DIR>/custodians)')
    .action(async (options: { nodes: string; threshold: string; out?: string }) => {
      const nodes = wholeNumber(options.nodes, '--nodes');
      const threshold = wholeNumber(options.threshold, '--threshold');
      if (nodes < 2 || nodes > 255) throw new UsageError('--nodes must be 2 to 255');
      if (threshold < 2 || threshold > nodes) throw new UsageError('--threshold must be 2 to --nodes');
      const dir = options.out ? path.resolve(options.out) : custodyKeyDir(loadConfig());
      const network = await generateCustodyKeys(dir, nodes, threshold).catch((error: unknown) => {
        throw error instanceof CustodyKeysExist ? new UsageError(error.message) : error;
      });
      process.stdout.write(
        [
          `wrote ${nodes} share files (custodian-1.json .. custodian-${nodes}.json, mode 0600) and network.json to ${dir}`,
          `any ${threshold} of ${nodes} custodians can authorize a decryption; the master key was not written anywhere`,
          'give each custodian its own share file only (CUSTODIAN_SHARE_FILE), and the API the public key:',
          `TAG_NETWORK_PUBLIC_KEY=${network.publicKey}`,
          '',
        ].join('\n'),
      );
    });
  custodian
    .command('serve')
    .description('Run one custodian (CUSTODIAN_SHARE_FILE, CUSTODIAN_PORT) until SIGTERM')
    .option('--share-file <file>', 'overrides CUSTODIAN_SHARE_FILE')
    .option('--port <port>', 'overrides CUSTODIAN_PORT')
    .action(async (options: { shareFile?: string; port?: string }) => {
      const env = { ...process.env };
      if (options.shareFile) env.CUSTODIAN_SHARE_FILE = path.resolve(options.shareFile);
      if (options.port) env.CUSTODIAN_PORT = String(wholeNumber(options.port, '--port'));
      const child = spawn(process.execPath, entryPointArgs(CUSTODIAN_SERVER), { env, stdio: 'inherit' });
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
      const code = await new Promise<number>((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
      process.exitCode = code;
    });
  return custodian;
}

function wholeNumber(text: string, option: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${option} must be a whole number`);
  return Number(text);
}
