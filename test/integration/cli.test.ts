import { describe, expect, it } from 'vitest';
import { cursorSecret } from '../../api/recommend/cursor.ts';
import { loadSigningKeys } from '../../api/auth/signing-keys.ts';
import { parseConfig } from '../../shared/config.ts';
import { logicalRows, writeText } from '../support/pipeline-harness.ts';
import { runSoulgraph } from '../support/child-process.ts';
import { runCliInProcess } from '../support/cli-in-process.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const RAPHTORY_TRANSACTIONS = '../shared/data/raphtory-eth/transactions_03300000_03399999_small.csv';

// The process itself is the point of the first few (a worker started on the side, settings
// read at start-up); the rest run the CLI's own code in this process (cli-in-process.ts).
describe('the soulgraph command line', () => {
  it('ingests a real ethereum-etl export end to end, running a worker itself when none is up', async () => {
    const { code, output } = await runSoulgraph(['ingest', 'transactions', '--format', 'ethereum-etl', RAPHTORY_TRANSACTIONS], env.env);
    expect(code).toBe(0);
    expect(output).toContain('no worker is serving ingest-transactions');
    expect(output).toMatch(/transactions: 19999 accepted, 0 rejected, 19999 read in 1 chunk/);
    expect(await logicalRows(env, 'transactions')).toBe(19_999);
  });

  it('shows rows per table and queue depths in status', async () => {
    const { code, output } = await runSoulgraph(['status'], env.env);
    expect(code).toBe(0);
    expect(output).toMatch(/ingest-transactions\s+0\s+0\s+0\s+0\s+1\s+0/);
    expect(output).toMatch(/transactions\s+transactions\s+19999\s+0/);
  });

  it('answers an unknown kind with exit code 2 and the list of kinds', async () => {
    const { code, output } = await runCliInProcess(['ingest', 'tweets', 'x.jsonl'], env.env);
    expect(code).toBe(2);
    expect(output).toContain('unknown kind "tweets"; kinds are profiles, social-follows');
  });

  it('refuses --format ethereum-etl for a kind ethereum-etl does not export', async () => {
    const { code, output } = await runCliInProcess(['ingest', 'profiles', '--format', 'ethereum-etl', 'p.csv'], env.env);
    expect(code).toBe(2);
    expect(output).toContain('--format ethereum-etl is available for transactions and token-transfers, not profiles');
  });

  it('stops at start with one line naming a bad setting', async () => {
    const { code, output } = await runSoulgraph(['status'], { ...env.env, CLICKHOUSE_DATABASE: 'no-dashes' });
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      'soulgraph: Invalid setting CLICKHOUSE_DATABASE ("no-dashes"): must be a plain identifier (letters, digits, _)',
    ]);
  });

  it('explains every command with --help', async () => {
    const { code, output } = await runCliInProcess(['--help'], env.env);
    expect(code).toBe(0);
    const commands = ['start', 'ingest', 'chain', 'status', 'migrate', 'generate', 'workers', 'scheduler', 'schedules', 'retry', 'materialize', 'eval'];
    for (const command of commands) expect(output).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    for (const command of commands) {
      const help = await runCliInProcess([command, '--help'], env.env);
      expect(help.code, `${command} --help: ${help.output}`).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: soulgraph ${command} `));
    }
  });
});

describe('the soulgraph command line, checking inputs before enqueueing', () => {
  it('stops on a CSV header with a misspelled column, listing the columns of the kind', async () => {
    const file = await writeText('follows.csv', 'followerProfileId,followeeProfileId,followedAt,unfollowed_at\np_1,p_2,2024-01-01,\n');
    const { code, output } = await runCliInProcess(['ingest', 'follows', file], env.env);
    expect(code).toBe(2);
    expect(output).toContain(
      'unknown column unfollowed_at; the columns of follows are followerProfileId, followeeProfileId, followedAt, unfollowedAt',
    );
    expect(await logicalRows(env, 'follows')).toBe(0);
  });

  it('stops on a CSV header that is not valid CSV, naming its line, without a stack trace', async () => {
    const file = await writeText('broken-header.csv', 'followerProfileId,"followeeProfileId\np_1,p_2\n');
    const { code, output } = await runCliInProcess(['ingest', 'follows', file], env.env);
    expect(code).toBe(2);
    expect(output.trim()).toBe(`soulgraph: ${file}:1: the CSV header is not valid CSV: a quote opened at line 1 is never closed`);
  });

  it('names a missing file in one line, without a stack trace', async () => {
    const { code, output } = await runCliInProcess(['ingest', 'profiles', 'nowhere/profiles.jsonl'], env.env);
    expect(code).toBe(2);
    expect(output.trim()).toBe('soulgraph: nowhere/profiles.jsonl: no such file, or not readable');
  });
});

describe('soulgraph secrets', () => {
  it('generates a signing key and a cursor secret that a production API accepts', async () => {
    const { code, output } = await runCliInProcess(['secrets', 'generate'], env.env);
    expect(code).toBe(0);
    const keys = /^API_SIGNING_KEYS='(.+)'$/m.exec(output)?.[1];
    const secret = /^CURSOR_SECRET=(\S+)$/m.exec(output)?.[1];
    const signingKeys = await loadSigningKeys({ API_SIGNING_KEYS: keys!, NODE_ENV: 'production' });
    expect(signingKeys.publicJwks().keys).toHaveLength(1);
    expect(cursorSecret(parseConfig({ NODE_ENV: 'production', CURSOR_SECRET: secret! })).length).toBeGreaterThanOrEqual(32);
  });
});
