/**
 * A private clickhouse-server child on free loopback ports, configured by files we
 * write into its folder so it never reads /etc/clickhouse-server.
 * The XML uses only what 18.16.1 (the Debian package) and current releases both accept.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { commandOnCpus } from '../cpu-affinity.ts';
import { findClickHouseServer, type BinarySearch, type Command } from './binaries.ts';
import { freePorts } from './free-port.ts';
import {
  fileSize,
  readAppendedSince,
  retryOnPortClash,
  runningService,
  spawnServer,
  waitUntilReady,
  type RunningService,
} from './running-service.ts';

export interface ClickHouseOptions extends BinarySearch {
  /** Folder for config, data and logs; created if missing. */
  dir: string;
  log?: (line: string) => void;
  /** Password of the read-only `analyst` user. */
  analystPassword?: string;
  /** Binary to run; found on the search path when omitted. */
  command?: Command;
  /** The CPUs it runs on (a host split by INGEST_CPUS); default: any. */
  cpus?: readonly number[] | undefined;
  /** Ports chosen by the caller (a cluster, whose config names every member's ports); default: free ones. */
  ports?: ClickHousePorts;
  /** More top-level config elements (a cluster member's remote_servers, zookeeper and macros). */
  extraConfigXml?: string;
}

const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 15_000;

export async function startClickHouse(options: ClickHouseOptions): Promise<RunningService> {
  const command = commandOnCpus(options.command ?? findClickHouseServer(options), options.cpus);
  if (options.ports) return startOnce(command, options, options.ports);
  return retryOnPortClash(() => startOnce(command, options));
}

/** Three distinct free ports for one server. */
async function freeClickHousePorts(): Promise<ClickHousePorts> {
  const [httpPort, tcpPort, interserverPort] = (await freePorts(3)) as [number, number, number];
  return { httpPort, tcpPort, interserverPort };
}

async function startOnce(command: Command, options: ClickHouseOptions, samePorts?: ClickHousePorts): Promise<RunningService> {
  const dir = resolve(options.dir);
  const ports = samePorts ?? (await freeClickHousePorts());
  const { httpPort } = ports;
  const configPath = await writeServerFiles(dir, ports, options.analystPassword ?? 'analyst', options.extraConfigXml ?? '');
  const errorLog = join(dir, 'log', 'clickhouse-server.err.log');
  const errorLogStart = await fileSize(errorLog);
  const url = `http://127.0.0.1:${httpPort}`;

  const server = spawnServer(command, [`--config-file=${configPath}`], dir);
  await waitUntilReady(server, {
    name: 'clickhouse-server',
    timeoutMs: START_TIMEOUT_MS,
    probe: () => pingClickHouse(url),
    diagnostics: async () => `${server.stderrTail()}\n${await readAppendedSince(errorLog, errorLogStart)}`,
  });
  const version = await clickHouseVersion(url);
  options.log?.(`clickhouse-server ${version} on ${url} (data: ${dir})`);
  return runningService(server, { url, version, stopGraceMs: STOP_GRACE_MS, restart: () => startOnce(command, options, ports) });
}

/** True if a ClickHouse server answers GET /ping at this URL. */
export async function pingClickHouse(url: string): Promise<boolean> {
  try {
    const response = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(1_000) });
    return response.ok && (await response.text()).trim() === 'Ok.';
  } catch {
    return false;
  }
}

async function clickHouseVersion(url: string): Promise<string> {
  const response = await fetch(`${url}/?query=${encodeURIComponent('SELECT version()')}`, { signal: AbortSignal.timeout(5_000) });
  return (await response.text()).trim();
}

export interface ClickHousePorts {
  httpPort: number;
  tcpPort: number;
  interserverPort: number;
}

/** Creates the folder layout and both XML files; returns the config.xml path. */
async function writeServerFiles(dir: string, ports: ClickHousePorts, analystPassword: string, extraConfigXml: string): Promise<string> {
  for (const sub of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) await mkdir(join(dir, sub), { recursive: true });
  const configPath = join(dir, 'config.xml');
  await writeFile(configPath, serverConfigXml(dir, ports, extraConfigXml));
  await writeFile(join(dir, 'users.xml'), usersXml(analystPassword));
  return configPath;
}

function serverConfigXml(dir: string, ports: ClickHousePorts, extraConfigXml: string): string {
  const path = (sub: string) => xmlText(join(dir, sub) + '/');
  // Only the three ports 18.16 knows are listed; newer releases leave mysql/postgres ports off unless configured.
  return `<?xml version="1.0"?>
<yandex>
    <logger>
        <level>information</level>
        <log>${xmlText(join(dir, 'log', 'clickhouse-server.log'))}</log>
        <errorlog>${xmlText(join(dir, 'log', 'clickhouse-server.err.log'))}</errorlog>
        <size>100M</size>
        <count>3</count>
    </logger>
    <http_port>${ports.httpPort}</http_port>
    <tcp_port>${ports.tcpPort}</tcp_port>
    <interserver_http_port>${ports.interserverPort}</interserver_http_port>
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <listen_host>127.0.0.1</listen_host>
    <max_connections>1024</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <!-- Caches are allocated on demand, but the defaults (5-8 GB) are sized for a dedicated server. -->
    <mark_cache_size>268435456</mark_cache_size>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <path>${path('data')}</path>
    <tmp_path>${path('tmp')}</tmp_path>
    <user_files_path>${path('user_files')}</user_files_path>
    <format_schema_path>${path('format_schemas')}</format_schema_path>
    <users_config>${xmlText(join(dir, 'users.xml'))}</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <!-- Statements run with log_queries = 1 (the nightly materialization's) land here: duration, rows, peak memory. -->
    <query_log>
        <database>system</database>
        <table>query_log</table>
        <partition_by>toYYYYMM(event_date)</partition_by>
        <flush_interval_milliseconds>7500</flush_interval_milliseconds>
    </query_log>${extraConfigXml}
</yandex>
`;
}

function usersXml(analystPassword: string): string {
  const memory = `
            <max_memory_usage>4000000000</max_memory_usage>
            <max_bytes_before_external_group_by>2000000000</max_bytes_before_external_group_by>`;
  const loopbackOnly = `
            <networks>
                <ip>::1</ip>
                <ip>127.0.0.1</ip>
            </networks>`;
  return `<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>${memory}
        </default>
        <readonly>
            <readonly>1</readonly>${memory}
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>${loopbackOnly}
            <profile>default</profile>
            <quota>default</quota>
            <access_management>1</access_management>
        </default>
        <analyst>
            <password>${xmlText(analystPassword)}</password>${loopbackOnly}
            <profile>readonly</profile>
            <quota>default</quota>
        </analyst>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
`;
}

export function xmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
