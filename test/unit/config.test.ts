import { describe, it, expect } from 'vitest';
import { chainName, ConfigError, parseConfig } from '../../shared/config.ts';

/** The ConfigError parseConfig throws for env (fails the test if it does not throw one). */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

describe('parseConfig defaults', () => {
  it('gives every setting its default with an empty environment', () => {
    const config = parseConfig({});
    expect(config.NODE_ENV).toBe('development');
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.CLICKHOUSE_URL).toBeUndefined();
    expect(config.CLICKHOUSE_USER).toBe('default');
    expect(config.CLICKHOUSE_PASSWORD).toBe('');
    expect(config.CLICKHOUSE_DATABASE).toBe('soulgraph');
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.QUEUE_PREFIX).toBe('soulgraph');
    expect(config.DATA_DIR).toBe('.data');
    expect(config.API_PORT).toBe(8080);
    expect(config.INGEST_CHUNK_ROWS).toBe(50_000);
    expect(config.INGEST_WORKER_CONCURRENCY).toBe(2);
    expect(config.INGEST_JOB_ATTEMPTS).toBe(5);
    expect(config.INGEST_LOCK_MS).toBe(30_000);
    expect(config.SOCIAL_NETWORK_NAME).toBe('Twitter');
    expect(config.COMPACT_CRON).toBe('0 4 * * 0');
    expect(config.CHAIN_RPC_URLS).toEqual([]);
    expect([...config.CHAIN_NAMES]).toEqual([
      [1, 'Ethereum'],
      [10, 'Optimism'],
      [56, 'BNB Chain'],
      [137, 'Polygon'],
      [8453, 'Base'],
      [42161, 'Arbitrum One'],
      [31337, 'Hardhat'],
    ]);
  });

  it('bounds the paths of two hops and the co-holders a profile gets (docs/materialization.md)', () => {
    const config = parseConfig({});
    expect(config.REC_NFT_CANDIDATES_PER_COLLECTION).toBe(100);
    expect(config.REC_FOF_PATHS).toBe(1_000);
    expect(config.REC_FOF_PATHS_PER_RUN).toBe(200_000_000);
    expect(config.REC_FIT_HELD_OUT).toBe(5_000);
    expect(config.RANK_THREADS).toBe(0);
  });

  it('takes 0 paths per profile (only what the run budget gives), and refuses fewer', () => {
    expect(parseConfig({ REC_FOF_PATHS: '0' }).REC_FOF_PATHS).toBe(0);
    expect(configError({ REC_FOF_PATHS: '-1' }).message).toBe('Invalid setting REC_FOF_PATHS ("-1"): Too small: expected number to be >=0');
  });

  it('refuses REC_FOF_EXACT_PATHS, which REC_FOF_PATHS replaced, rather than ignore it', () => {
    expect(configError({ REC_FOF_EXACT_PATHS: '2000' }).message).toBe(
      'Setting REC_FOF_EXACT_PATHS was replaced by REC_FOF_PATHS (the friend-of-friend paths each profile gets, every one when it has that few): rename it',
    );
  });

  it.each([
    ['REC_WEIGHT_SOCIAL', 'each run fits the weights of every signal to its own newest follows'],
    ['REC_UNNAMED_PATHS', 'each run fits the weights of every signal to its own newest follows'],
    ['REC_FOF_VIA_FOLLOWEES', 'every hop passes on its share of the cap (REC_FOF_PATHS, REC_FOF_PATHS_PER_RUN)'],
    ['REC_PAIRS_PER_BUCKET', 'buckets are ranked in memory, not in ClickHouse (REC_PROFILES_PER_BUCKET)'],
  ])('refuses %s, which the SQL ranking read and nothing reads now, naming why', (setting, why) => {
    expect(configError({ [setting]: '1' }).message).toBe(`Setting ${setting} is no longer used (${why}): remove it`);
  });

  it('reads numbers from their text', () => {
    const config = parseConfig({ API_PORT: '9000', INGEST_CHUNK_ROWS: '500', INGEST_LOCK_MS: '1000' });
    expect(config.API_PORT).toBe(9000);
    expect(config.INGEST_CHUNK_ROWS).toBe(500);
    expect(config.INGEST_LOCK_MS).toBe(1000);
  });

  it('treats a blank CLICKHOUSE_URL or REDIS_URL as unset', () => {
    expect(parseConfig({ CLICKHOUSE_URL: '' }).CLICKHOUSE_URL).toBeUndefined();
    expect(parseConfig({ CLICKHOUSE_URL: '   ' }).CLICKHOUSE_URL).toBeUndefined();
    expect(parseConfig({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });

  it('keeps a valid CLICKHOUSE_URL and REDIS_URL as given', () => {
    const config = parseConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', REDIS_URL: 'redis://127.0.0.1:6379/2' });
    expect(config.CLICKHOUSE_URL).toBe('http://127.0.0.1:8123');
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379/2');
  });

  it('accepts https:// for ClickHouse and rediss:// for Redis', () => {
    const config = parseConfig({ CLICKHOUSE_URL: 'https://ch.example.com:8443', REDIS_URL: 'rediss://cache.example.com' });
    expect(config.CLICKHOUSE_URL).toBe('https://ch.example.com:8443');
    expect(config.REDIS_URL).toBe('rediss://cache.example.com');
  });

  it('splits CHAIN_RPC_URLS on commas and drops blanks', () => {
    expect(parseConfig({ CHAIN_RPC_URLS: 'http://a:8545, ,http://b:8545 ' }).CHAIN_RPC_URLS).toEqual([
      'http://a:8545',
      'http://b:8545',
    ]);
  });
});

describe('parseConfig errors', () => {
  it.each([
    ['CLICKHOUSE_URL', 'not a url'],
    ['CLICKHOUSE_URL', 'localhost:8123'],
    ['CLICKHOUSE_URL', 'ftp://ch.example.com'],
    ['REDIS_URL', 'nope'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['API_PORT', '70000'],
    ['API_PORT', 'abc'],
    ['API_PORT', '80.5'],
    ['API_PORT', '-1'],
    ['CLICKHOUSE_DATABASE', 'my-db'],
    ['CLICKHOUSE_DATABASE', '1db'],
    ['CLICKHOUSE_DATABASE', 'a\nb'],
    ['LOG_LEVEL', 'verbose'],
    ['NODE_ENV', 'staging'],
    ['INGEST_CHUNK_ROWS', '0'],
    ['INGEST_WORKER_CONCURRENCY', '65'],
    ['INGEST_LOCK_MS', '999'],
    ['QUEUE_PREFIX', 'has space'],
    ['SOCIAL_NETWORK_NAME', ''],
    ['REC_FOF_PATHS', '2.5'],
    ['REC_FIT_HELD_OUT', '-1'],
    ['RANK_THREADS', '257'],
    ['REC_NFT_CANDIDATES_PER_COLLECTION', '0'],
  ])('answers one line naming %s when it is %j', (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.name).toBe('ConfigError');
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message.startsWith(`Invalid setting ${variable} (`)).toBe(true);
  });

  it('shows the offending value of a non-secret setting', () => {
    expect(configError({ REDIS_URL: 'nope' }).message).toBe(
      'Invalid setting REDIS_URL ("nope"): must be a redis:// or rediss:// URL',
    );
  });

  it('says which schemes a URL may use', () => {
    expect(configError({ CLICKHOUSE_URL: 'localhost:8123' }).message).toBe(
      'Invalid setting CLICKHOUSE_URL ("localhost:8123"): must be a http:// or https:// URL',
    );
  });

  it('shows a value with a newline escaped, keeping the message on one line', () => {
    expect(configError({ CLICKHOUSE_DATABASE: 'a\nb' }).message).toContain('("a\\nb")');
  });

  it('names the first bad setting when there are several', () => {
    expect(configError({ CLICKHOUSE_URL: 'x', API_PORT: 'y' }).message).toMatch(/^Invalid setting CLICKHOUSE_URL /);
  });

  it.each([
    ['CLICKHOUSE_URL', 'not a url'],
    ['REDIS_URL', 'nope'],
    ['API_PORT', 'abc'],
    ['CLICKHOUSE_DATABASE', 'my-db'],
    ['CHAIN_NAMES', 'Ethereum'],
  ])('never shows CLICKHOUSE_PASSWORD when %s is bad', (variable, value) => {
    const password = 'hunter2-S3cret';
    const error = configError({ CLICKHOUSE_PASSWORD: password, CLICKHOUSE_USER: 'analyst', [variable]: value });
    expect(error.message).toContain(variable);
    expect(error.message).not.toContain(password);
    expect(error.message).not.toContain('hunter2');
  });

  it('hides the password inside a bad URL but still names the variable', () => {
    const message = configError({ REDIS_URL: 'redis://admin:hunter2@localhost:99999' }).message;
    expect(message).toMatch(/^Invalid setting REDIS_URL /);
    expect(message).not.toContain('hunter2');
    expect(message).toBe('Invalid setting REDIS_URL ("redis://***@localhost:99999"): must be a redis:// or rediss:// URL');
  });

  it('hides everything before the last @, even when the password has an @ in it', () => {
    const message = configError({ REDIS_URL: 'redis://admin:p@ss@localhost:99999' }).message;
    expect(message).toContain('("redis://***@localhost:99999")');
  });

  it('keeps the password inside a valid URL (it is only masked in messages)', () => {
    expect(parseConfig({ REDIS_URL: 'redis://:hunter2@localhost:6379' }).REDIS_URL).toBe('redis://:hunter2@localhost:6379');
  });
});

describe('CHAIN_NAMES', () => {
  it('parses "1=Ethereum,137=Polygon" into a map from chain id to name', () => {
    const names = parseConfig({ CHAIN_NAMES: '1=Ethereum,137=Polygon' }).CHAIN_NAMES;
    expect(names).toBeInstanceOf(Map);
    expect([...names]).toEqual([
      [1, 'Ethereum'],
      [137, 'Polygon'],
    ]);
  });

  it('trims spaces around ids, names and pairs, and keeps spaces inside a name', () => {
    const names = parseConfig({ CHAIN_NAMES: ' 56 = BNB Chain , 10=Optimism ,' }).CHAIN_NAMES;
    expect([...names]).toEqual([
      [56, 'BNB Chain'],
      [10, 'Optimism'],
    ]);
  });

  it.each(['1=Ethereum,Polygon', 'x=Foo', '1=', '=Ethereum', '-1=Minus'])(
    'rejects the malformed list %j naming CHAIN_NAMES',
    (value) => {
      const message = configError({ CHAIN_NAMES: value }).message;
      expect(message).toMatch(/^Invalid setting CHAIN_NAMES \(/);
      expect(message).toContain('is not <chainId>=<name>');
      expect(message).not.toMatch(/\n/);
    },
  );

  it('quotes the offending pair in the message', () => {
    expect(configError({ CHAIN_NAMES: '1=Ethereum,Polygon' }).message).toContain('"Polygon" is not <chainId>=<name>');
  });
});

describe('chainName', () => {
  it('returns the configured name of a chain', () => {
    expect(chainName(parseConfig({}), 137)).toBe('Polygon');
    expect(chainName(parseConfig({ CHAIN_NAMES: '137=Matic' }), 137)).toBe('Matic');
  });

  it('falls back to "chain <id>" for an unnamed chain', () => {
    expect(chainName(parseConfig({}), 999)).toBe('chain 999');
    expect(chainName(parseConfig({ CHAIN_NAMES: '' }), 1)).toBe('chain 1');
  });
});
