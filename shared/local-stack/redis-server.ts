/**
 * A private redis-server child on a free loopback port. Readiness is checked with a
 * raw RESP PING rather than ioredis, whose reconnect loop would hide why a start failed.
 */
import { mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { commandOnCpus } from '../cpu-affinity.ts';
import { findRedisServer, type BinarySearch, type Command } from './binaries.ts';
import { freePort } from './free-port.ts';
import {
  fileSize,
  readAppendedSince,
  retryOnPortClash,
  runningService,
  spawnServer,
  waitUntilReady,
  type RunningService,
} from './running-service.ts';

export interface RedisOptions extends BinarySearch {
  /** Folder for the append-only file and the log; created if missing. */
  dir: string;
  /** A port of the caller's (a restart where clients expect it); default: a free one. */
  port?: number;
  log?: (line: string) => void;
  command?: Command;
  /** The CPUs it runs on (a host split by INGEST_CPUS); default: any. */
  cpus?: readonly number[] | undefined;
  /** More redis-server arguments (a cluster member's --cluster-enabled yes ...). */
  extraArgs?: string[];
  /**
   * 'append-only-file' (default): every write logged, so the queues' jobs survive a crash.
   * 'snapshots-on-request': an RDB snapshot written by a forked child when a client sends
   * BGSAVE (the serving writer, after each nightly publish); Redis's own thread never writes
   * to the disk, and no save rule fires on its own.
   */
  persistence?: 'append-only-file' | 'snapshots-on-request';
}

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 10_000;

export async function startRedis(options: RedisOptions): Promise<RunningService> {
  const command = commandOnCpus(options.command ?? findRedisServer(options), options.cpus);
  return options.port === undefined ? retryOnPortClash(() => startOnce(command, options)) : startOnce(command, options);
}

async function startOnce(command: Command, options: RedisOptions): Promise<RunningService> {
  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const port = options.port ?? (await freePort());
  const logFile = join(dir, 'redis.log');
  const logStart = await fileSize(logFile);
  const url = `redis://127.0.0.1:${port}`;

  const server = spawnServer(command, [...redisArgs(port, dir, logFile, options.persistence ?? 'append-only-file'), ...(options.extraArgs ?? [])], dir);
  await waitUntilReady(server, {
    name: 'redis-server',
    timeoutMs: START_TIMEOUT_MS,
    probe: () => pingRedis(url),
    diagnostics: async () => `${server.stderrTail()}\n${await readAppendedSince(logFile, logStart)}`,
  });
  const version = await redisVersion(url);
  options.log?.(`redis-server ${version} on ${url} (data: ${dir})`);
  return runningService(server, { url, version, stopGraceMs: STOP_GRACE_MS, restart: () => startOnce(command, { ...options, port }) });
}

function redisArgs(port: number, dir: string, logFile: string, persistence: RedisOptions['persistence']): string[] {
  return [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    ...(persistence === 'append-only-file'
      ? // The AOF keeps queued jobs across restarts; RDB snapshots on top would only add fork pauses.
        ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '']
      : // An AOF write() can hold Redis's one thread for tens of ms while ClickHouse writes
        // parts on the same disk (bench:reads-under-ingest); a snapshot's child cannot. No
        // save rule: under API traffic the rate-limit counters alone met Redis's default
        // "10,000 changes in 60 s" every minute, and each save (a fork, then a core writing
        // the whole serving copy) put 26-158 ms on recommend's p99 (bench:api).
        ['--appendonly', 'no', '--save', '']),
    // BullMQ refuses to run when Redis may evict its keys; the serving copy's mirrors must
    // not lose entries silently either.
    '--maxmemory-policy', 'noeviction',
    '--daemonize', 'no',
    '--logfile', logFile,
  ];
}

/** True if a Redis server at this URL answers PING with PONG. */
export async function pingRedis(url: string): Promise<boolean> {
  try {
    return (await redisCommand(url, 'PING')).startsWith('+PONG');
  } catch {
    return false;
  }
}

async function redisVersion(url: string): Promise<string> {
  const info = await redisCommand(url, 'INFO server');
  return /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
}

/** Sends one inline command and returns the raw reply once complete (simple, error or bulk reply). */
export function redisCommand(url: string, command: string, timeoutMs = 1_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolvePromise, reject) => {
    const socket = connect({ host: hostname, port: Number(port) || 6379 });
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no reply to ${command} within ${timeoutMs} ms`)));
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`connection closed before a full reply to ${command}`)));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (!isCompleteReply(reply)) return;
      socket.end();
      resolvePromise(reply);
    });
  });
}

function isCompleteReply(reply: string): boolean {
  const headerEnd = reply.indexOf('\r\n');
  if (headerEnd < 0) return false;
  if (reply[0] !== '$') return true;
  const length = Number(reply.slice(1, headerEnd));
  return length < 0 || Buffer.byteLength(reply) >= headerEnd + 2 + length + 2;
}
