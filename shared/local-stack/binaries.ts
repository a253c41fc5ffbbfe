/**
 * Finds the server binaries the local stack runs. A missing binary is reported
 * with the exact command that installs it, since that is all the user needs.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** An executable plus the arguments that must precede the caller's own. */
export interface Command {
  file: string;
  args: string[];
}

export interface BinarySearch {
  /** Folders to search, in order. Default: PATH, then /usr/bin and /usr/sbin (often missing from PATH for non-root users). */
  searchDirs?: string[];
}

export const INSTALL_HINT = [
  'Install the servers, or point soulgraph at running ones:',
  '  Debian/Ubuntu: apt-get install -y clickhouse-server clickhouse-client redis-server',
  '  elsewhere: docker compose up -d clickhouse redis, then set CLICKHOUSE_URL=http://127.0.0.1:8123 CLICKHOUSE_USER=soulgraph CLICKHOUSE_PASSWORD=soulgraph REDIS_URL=redis://127.0.0.1:6379',
].join('\n');

export class MissingBinaryError extends Error {
  override name = 'MissingBinaryError';
}

export function defaultSearchDirs(): string[] {
  const fromPath = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean);
  return [...new Set([...fromPath, '/usr/bin', '/usr/sbin'])];
}

export function findClickHouseServer(search: BinarySearch = {}): Command {
  const dirs = search.searchDirs ?? defaultSearchDirs();
  const server = findExecutable('clickhouse-server', dirs);
  if (server) return { file: server, args: [] };
  // Official builds since ~2021 often ship only the multi-tool binary.
  const multiTool = findExecutable('clickhouse', dirs);
  if (multiTool) return { file: multiTool, args: ['server'] };
  throw missing('clickhouse-server (or clickhouse)', dirs);
}

export function findRedisServer(search: BinarySearch = {}): Command {
  const dirs = search.searchDirs ?? defaultSearchDirs();
  const server = findExecutable('redis-server', dirs);
  if (server) return { file: server, args: [] };
  throw missing('redis-server', dirs);
}

/** The first executable of this name in these folders. */
export function findExecutable(name: string, dirs: string[]): string | undefined {
  return dirs.map((dir) => join(dir, name)).find(isExecutableFile);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function missing(name: string, dirs: string[]): MissingBinaryError {
  return new MissingBinaryError(`${name} not found (searched ${dirs.join(', ') || 'nothing'}).\n${INSTALL_HINT}`);
}
