/**
 * A private ZooKeeper (standalone) child on a free loopback port: the coordination service
 * of ClickHouse's Replicated tables and ON CLUSTER statements in the local cluster. Run as a
 * plain java process over Debian's `zookeeper` package (its jar names its dependencies in
 * its manifest), with a zoo.cfg written into its folder; no /etc/zookeeper is read.
 */
import { accessSync, constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { findExecutable, defaultSearchDirs, MissingBinaryError, type Command } from './binaries.ts';
import { freePort } from './free-port.ts';
import { fileSize, readAppendedSince, retryOnPortClash, runningService, spawnServer, waitUntilReady, type RunningService } from './running-service.ts';

export interface ZooKeeperOptions {
  /** Folder for zoo.cfg, data and the log; created if missing. */
  dir: string;
  log?: (line: string) => void;
}

/** Where Debian's package puts the server jar. */
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export const ZOOKEEPER_INSTALL_HINT = 'ZooKeeper not found: apt-get install -y zookeeper (Debian/Ubuntu; it brings Java)';

/** java plus the ZooKeeper jar, or a MissingBinaryError saying how to install them. */
export function findZooKeeper(): Command {
  const java = findExecutable('java', defaultSearchDirs());
  try {
    accessSync(ZOOKEEPER_JAR, constants.R_OK);
  } catch {
    throw new MissingBinaryError(`${ZOOKEEPER_JAR} is missing. ${ZOOKEEPER_INSTALL_HINT}`);
  }
  if (!java) throw new MissingBinaryError(`java not found. ${ZOOKEEPER_INSTALL_HINT}`);
  // A small heap: the local cluster keeps a few thousand znodes.
  return { file: java, args: ['-Xmx256m', '-XX:+UseSerialGC', '-cp', ZOOKEEPER_JAR, 'org.apache.zookeeper.server.ZooKeeperServerMain'] };
}

export async function startZooKeeper(options: ZooKeeperOptions): Promise<RunningService> {
  const command = findZooKeeper();
  return retryOnPortClash(() => startOnce(command, options));
}

async function startOnce(command: Command, options: ZooKeeperOptions, samePort?: number): Promise<RunningService> {
  const dir = resolve(options.dir);
  await mkdir(join(dir, 'data'), { recursive: true });
  const port = samePort ?? (await freePort());
  const configPath = join(dir, 'zoo.cfg');
  await writeFile(configPath, zooCfg(dir, port));
  const logFile = join(dir, 'zookeeper.out');
  const logStart = await fileSize(logFile);
  const server = spawnServer(command, [configPath], dir);
  await waitUntilReady(server, {
    name: 'zookeeper',
    timeoutMs: START_TIMEOUT_MS,
    probe: () => zooKeeperAnswers(port),
    diagnostics: async () => `${server.stderrTail()}\n${await readAppendedSince(logFile, logStart)}`,
  });
  const url = `zookeeper://127.0.0.1:${port}`;
  options.log?.(`zookeeper on 127.0.0.1:${port} (data: ${dir})`);
  return runningService(server, { url, version: 'standalone', stopGraceMs: STOP_GRACE_MS, restart: () => startOnce(command, options, port) });
}

function zooCfg(dir: string, port: number): string {
  return [
    // Short ticks: sessions of a killed ClickHouse expire in seconds, not half a minute.
    'tickTime=500',
    'minSessionTimeout=2000',
    'maxSessionTimeout=10000',
    `dataDir=${join(dir, 'data')}`,
    `clientPort=${port}`,
    'clientPortAddress=127.0.0.1',
    // No admin web server (it would take port 8080) and only the health words we use.
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok',
    // Snapshots and logs of a throwaway server are not worth keeping.
    'autopurge.purgeInterval=1',
    '',
  ].join('\n');
}

/** True once the server answers the four-letter word ruok with imok. */
export function zooKeeperAnswers(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('error', () => resolvePromise(false));
    socket.once('close', () => resolvePromise(reply === 'imok'));
    socket.once('connect', () => socket.write('ruok'));
    socket.on('data', (chunk) => (reply += chunk.toString('utf8')));
  });
}
