/**
 * Keeps the ingestion guide and the deployment files honest: every record example in
 * docs/ingestion.md passes its kind's schema, docker-compose.yml sets only settings the
 * service reads, .env.example lists every setting with its default, and every way of
 * starting the API gives it the same V8 flags.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { validateChunk } from '../../pipeline/ingest/validate-chunk.ts';
import { API_NODE_FLAGS } from '../../pipeline/cli/start.command.ts';
import { SCHEDULED_JOB_OPTIONS } from '../../pipeline/job-schedulers.ts';
import { configSchema, parseConfig } from '../../shared/config.ts';
import { chainJobOptions, ingestJobOptions } from '../../shared/queues.ts';
import { isKindName, kindNames, recordKinds, type KindName } from '../../shared/records/kinds.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');
const settingNames = Object.keys(configSchema.shape);

interface CodeBlock {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The record kind whose section (### `kind`) holds the block, if any. */
  kind: KindName | undefined;
  /** Title of the enclosing level-2 section. */
  chapter: string;
}

/** Fenced code blocks of a Markdown text, each with the kind section it is in. */
function codeBlocks(markdown: string): { blocks: CodeBlock[]; kindSections: string[] } {
  const blocks: CodeBlock[] = [];
  const kindSections: string[] = [];
  let kind: KindName | undefined;
  let chapter = '';
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, i) => {
    if (open) {
      if (/^```\s*$/.test(text)) {
        blocks.push({ lang: open.lang, body: open.lines.join('\n'), line: open.line, kind, chapter });
        open = undefined;
      } else {
        open.lines.push(text);
      }
      return;
    }
    const fence = /^```(\S*)/.exec(text);
    if (fence) {
      open = { lang: fence[1]!, line: i + 1, lines: [] };
      return;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*$/.exec(text);
    if (!heading || heading[1]!.length > 3) return;
    if (heading[1]!.length <= 2) chapter = heading[2]!;
    const named = heading[1]!.length === 3 ? /^`([^`]+)`$/.exec(heading[2]!) : null;
    if (named) {
      kindSections.push(named[1]!);
      kind = isKindName(named[1]!) ? named[1] : undefined;
    } else {
      kind = undefined;
    }
  });
  if (open) throw new Error(`unclosed code block at line ${open.line}`);
  return { blocks, kindSections };
}

const nonBlankLines = (body: string) => body.split('\n').filter((l) => l.trim() !== '');

describe('docs/ingestion.md', () => {
  const { blocks, kindSections } = codeBlocks(read('docs/ingestion.md'));
  const jsonBlocks = blocks.filter((b) => b.lang === 'json');

  it('has exactly one section per record kind, and no section for an unknown kind', () => {
    expect([...kindSections].sort()).toEqual([...kindNames].sort());
  });

  it('has every JSON example inside a kind section, where the test below checks it', () => {
    const orphans = jsonBlocks.filter((b) => b.kind === undefined).map((b) => `line ${b.line}`);
    expect(orphans).toEqual([]);
  });

  describe.each(kindNames)('%s section', (kind) => {
    const examples = jsonBlocks
      .filter((b) => b.kind === kind)
      .flatMap((b) => nonBlankLines(b.body).map((text, i) => ({ text, where: `json block at line ${b.line}, line ${i + 1}` })));

    it("shows the kind's example", () => {
      const parsed = examples.map((e) => {
        try {
          return JSON.parse(e.text) as unknown;
        } catch {
          return undefined;
        }
      });
      expect(parsed).toContainEqual(recordKinds[kind].example);
    });

    it('has only JSON lines that are one object each and pass the schema', () => {
      expect(examples.length).toBeGreaterThan(0);
      for (const { text, where } of examples) {
        let record: unknown;
        expect(() => (record = JSON.parse(text)), `${where} is not JSON`).not.toThrow();
        expect(typeof record === 'object' && record !== null && !Array.isArray(record), `${where} is not an object`).toBe(true);
        const result = recordKinds[kind].schema.safeParse(record);
        expect(result.success, `${where}: ${result.error?.message}`).toBe(true);
      }
    });

    it('has only CSV examples whose every row is accepted', () => {
      for (const block of blocks.filter((b) => b.kind === kind && b.lang === 'csv')) {
        const [header, ...rows] = parseCsv(block.body, { skip_empty_lines: true }) as string[][];
        expect(rows.length, `csv block at line ${block.line} has no rows`).toBeGreaterThan(0);
        const { accepted, rejects } = validateChunk({
          kind,
          source: 'docs/ingestion.md',
          format: 'canonical',
          header: header!,
          rows,
          lines: rows.map((_, i) => block.line + 2 + i),
        });
        expect(rejects, `csv block at line ${block.line}`).toEqual([]);
        expect(accepted).toHaveLength(rows.length);
      }
    });
  });

  it('has ethereum-etl CSV examples that --format ethereum-etl accepts', () => {
    const etl = blocks.filter((b) => b.chapter === 'ethereum-etl exports' && b.lang === 'csv');
    expect(etl.length).toBeGreaterThanOrEqual(2);
    for (const block of etl) {
      const [header, ...rows] = parseCsv(block.body, { skip_empty_lines: true }) as string[][];
      const kind: KindName = header!.includes('token_address') ? 'token-transfers' : 'transactions';
      const { accepted, rejects } = validateChunk({
        kind,
        source: 'docs/ingestion.md',
        format: 'ethereum-etl',
        chainId: 1,
        header: header!,
        rows,
        lines: rows.map((_, i) => block.line + 2 + i),
      });
      expect(rejects, `csv block at line ${block.line}`).toEqual([]);
      expect(accepted.length, `csv block at line ${block.line}`).toBe(rows.length);
      expect(rows.length).toBeGreaterThan(0);
    }
  });

  it('has a CSV example for transactions', () => {
    expect(blocks.some((b) => b.kind === 'transactions' && b.lang === 'csv')).toBe(true);
  });
});

/** Compose's `${VAR:-default}` / `${VAR-default}` / `${VAR}` with an empty environment. */
function interpolateDefaults(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_, _name: string, fallback?: string) => fallback ?? '');
}

/** `environment:` as a mapping or as a list of NAME=value. */
function environmentOf(service: Record<string, unknown>): Record<string, string> {
  const env = service.environment;
  if (env === undefined || env === null) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry: string) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env as Record<string, unknown>).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

describe('docs/operations.md, failed jobs', () => {
  it('says how many failed jobs each kind of queue keeps, and for how long, as the code does', () => {
    const config = parseConfig({});
    const kept = (options: { removeOnFail?: unknown }) => {
      const { count, age } = options.removeOnFail as { count: number; age: number };
      return { count, days: age / 86_400 };
    };
    const doc = read('docs/operations.md');
    const ingestion = kept(ingestJobOptions(config));
    const chain = kept(chainJobOptions(config));
    const scheduled = kept(SCHEDULED_JOB_OPTIONS);
    expect(doc).toContain(`ingestion: ${ingestion.count} per queue for ${ingestion.days} days`);
    expect(doc).toContain(`chain ingestion: ${chain.count} for ${chain.days} days`);
    expect(doc).toContain(`scheduled jobs: ${scheduled.count} for ${scheduled.days} days`);
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
    version?: unknown;
    services: Record<string, Record<string, unknown>>;
  };
  const services = compose.services;
  const appServices = Object.entries(services).filter(([, s]) => s.build !== undefined);

  it('has the services of a deployment, without the obsolete version key', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['clickhouse', 'redis', 'migrate', 'workers', 'scheduler', 'api']));
    expect(compose.version).toBeUndefined();
  });

  it('builds the soulgraph image for migrate, workers and scheduler', () => {
    expect(appServices.map(([name]) => name)).toEqual(expect.arrayContaining(['migrate', 'workers', 'scheduler', 'api']));
  });

  it('sets only environment variables that shared/config.ts reads, to values it accepts', () => {
    for (const [name, service] of appServices) {
      const env = environmentOf(service);
      expect(Object.keys(env).length, name).toBeGreaterThan(0);
      for (const variable of Object.keys(env)) {
        expect(settingNames, `${name} sets ${variable}`).toContain(variable);
      }
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolateDefaults(v)]));
      const config = parseConfig(resolved);
      expect(config.CLICKHOUSE_URL, name).toBe('http://clickhouse:8123');
      expect(config.REDIS_URL, name).toBe('redis://redis:6379');
      expect(config.SERVING_REDIS_URL, name).toBe('redis://serving-redis:6379');
    }
  });

  it("runs the serving copy's Redis without an AOF, without save rules (the serving writer asks for snapshots) and without eviction", () => {
    const text = String(services['serving-redis']!.command);
    expect(text).toContain('--appendonly no');
    expect(text).toContain('--save ""');
    expect(text).toContain('--maxmemory-policy noeviction');
    for (const name of ['workers', 'api']) {
      expect(services[name]!.depends_on, name).toMatchObject({ 'serving-redis': { condition: 'service_healthy' } });
    }
  });

  it('runs Redis with persistence and without eviction (BullMQ must not lose jobs)', () => {
    const command = services.redis!.command;
    const text = Array.isArray(command) ? command.join(' ') : String(command);
    expect(text).toContain('--appendonly yes');
    expect(text).toContain('--maxmemory-policy noeviction');
  });

  it('starts workers and scheduler only after migrate succeeded and Redis is healthy', () => {
    for (const name of ['workers', 'scheduler']) {
      expect(services[name]!.depends_on, name).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
      });
    }
    expect(services.migrate!.depends_on).toMatchObject({ clickhouse: { condition: 'service_healthy' } });
  });
});

describe('docker-compose.yml, operations', () => {
  const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Record<string, unknown>> };
  const services = compose.services;
  const LONG_RUNNING = ['clickhouse', 'redis', 'serving-redis', 'workers', 'scheduler', 'api'];
  /** The setting that names the port each soulgraph process serves HTTP on. */
  const PORT_SETTING: Record<string, 'API_PORT' | 'ADMIN_PORT' | 'WORKERS_HTTP_PORT'> = { api: 'API_PORT', scheduler: 'ADMIN_PORT', workers: 'WORKERS_HTTP_PORT' };
  const healthcheckText = (name: string) => ((services[name]!.healthcheck as { test?: unknown } | undefined)?.test as string[] | undefined)?.join(' ') ?? '';
  const configOf = (name: string) =>
    parseConfig(Object.fromEntries(Object.entries(environmentOf(services[name]!)).map(([k, v]) => [k, interpolateDefaults(v)])));

  it.each(LONG_RUNNING)('gives %s a healthcheck and a restart policy', (name) => {
    expect(healthcheckText(name), name).not.toBe('');
    expect(services[name]!.restart).toBe('unless-stopped');
  });

  it('runs migrate once, without restarts', () => {
    expect(services.migrate!.restart).toBe('no');
  });

  it('keeps ClickHouse and Redis data in named volumes', () => {
    expect(services.clickhouse!.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^clickhouse-data:\/var\/lib\/clickhouse$/)]));
    expect(services.redis!.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^redis-data:\/data$/)]));
  });

  it('gives ClickHouse a backup disk on a volume of its own (docs/operations.md, Backups)', () => {
    const volumes = services.clickhouse!.volumes as string[];
    expect(volumes).toContain('./deploy/clickhouse/config.d/backups.xml:/etc/clickhouse-server/config.d/backups.xml:ro');
    const xml = read('deploy/clickhouse/config.d/backups.xml');
    const path = /<disks>[\s\S]*<backups>[\s\S]*?<path>([^<]+)<\/path>/.exec(xml)?.[1];
    expect(xml).toMatch(/<allowed_disk>backups<\/allowed_disk>/);
    expect(volumes).toContain(`clickhouse-backups:${path!.replace(/\/$/, '')}`);
    expect(read('docs/operations.md')).toContain("TO Disk('backups', ");
  });

  it.each(Object.entries(PORT_SETTING))('serves %s on the port its setting gives, and checks its health there', (name, setting) => {
    const port = configOf(name)[setting];
    const published = ((services[name]!.ports as string[] | undefined) ?? []).map((p) => Number(p.split(':').at(-1)));
    const exposed = ((services[name]!.expose as string[] | undefined) ?? []).map(Number);
    expect([...published, ...exposed], name).toContain(port);
    expect(healthcheckText(name)).toContain(`http://127.0.0.1:${port}/`);
  });

  it('publishes every port on 127.0.0.1 only', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const port of (service.ports as string[] | undefined) ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it("mounts the analyst account into ClickHouse, with a profile that is read-only", () => {
    const mount = (services.clickhouse!.volumes as string[]).find((v) => v.includes('analyst.xml'));
    expect(mount).toBe('./deploy/clickhouse/users.d/analyst.xml:/etc/clickhouse-server/users.d/analyst.xml:ro');
    const xml = read('deploy/clickhouse/users.d/analyst.xml').replace(/<!--[\s\S]*?-->/g, '');
    const profile = /<users>[\s\S]*<analyst>[\s\S]*?<profile>([^<]+)<\/profile>[\s\S]*?<\/analyst>/.exec(xml)?.[1];
    expect(profile).toBeDefined();
    const settings = new RegExp(`<profiles>[\\s\\S]*<${profile}>([\\s\\S]*?)</${profile}>`).exec(xml)?.[1] ?? '';
    expect(settings).toMatch(/<readonly>1<\/readonly>/);
  });
});

describe("the API's V8 flags", () => {
  it('are on the node command line of npm run api, docker-compose.yml and soulgraph start alike', () => {
    const npmScript = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.api!;
    const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { command: string[] }> };
    expect(npmScript).toBe(['node', ...API_NODE_FLAGS, 'bin/run.js', 'api/server/server.ts'].join(' '));
    expect(compose.services.api!.command).toEqual(['node', ...API_NODE_FLAGS, 'bin/run.js', 'api/server/server.ts']);
    expect(API_NODE_FLAGS).toContain('--heap-growing-percent=200');
  });

  it('are flags this node accepts (node refuses an unknown one)', () => {
    expect(() => execFileSync(process.execPath, [...API_NODE_FLAGS, '-e', '0'], { stdio: 'pipe' })).not.toThrow();
    expect(() => execFileSync(process.execPath, ['--heap-growing-percnt=200', '-e', '0'], { stdio: 'pipe' })).toThrow();
  });
});

describe('.env.example', () => {
  const entries = read('.env.example')
    .split('\n')
    .map((line) => /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1')] as const);
  const names = entries.map(([name]) => name);

  it('lists every setting of shared/config.ts once, and nothing else', () => {
    expect([...names].sort()).toEqual([...settingNames].sort());
  });

  it('shows each setting with its default', () => {
    expect(parseConfig(Object.fromEntries(entries))).toEqual(parseConfig({}));
  });
});
