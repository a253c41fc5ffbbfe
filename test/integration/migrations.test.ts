import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createClickHouse } from '../../shared/clickhouse/client.ts';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../shared/clickhouse/migrate.ts';
import { splitStatements } from '../../shared/clickhouse/sql-statements.ts';
import { identifier, sql, SqlFragment } from '../../shared/clickhouse/sql-literal.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const tableRow = z.object({ name: z.string() });
const columnRow = z.object({ table: z.string(), name: z.string(), comment: z.string() });

/**
 * A database migrated up to, not including, the migration `file` (its name in MIGRATIONS_DIR),
 * for a test of what that migration does to the rows it finds: `apply` applies it, `runBackfillAgain`
 * runs its INSERT a second time, as after a crash before the migration was recorded.
 */
async function databaseBefore(file: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
  const database = `${env.config.CLICKHOUSE_DATABASE}_${file.slice(0, 3)}`;
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  for (const earlier of files.filter((f) => f < file)) await copyFile(path.join(MIGRATIONS_DIR, earlier), path.join(dir, earlier));
  await migrate(env.config, { database, dir });
  return {
    db: identifier(database),
    apply: async () => {
      await copyFile(path.join(MIGRATIONS_DIR, file), path.join(dir, file));
      return migrate(env.config, { database, dir });
    },
    runBackfillAgain: async () => {
      const backfill = splitStatements(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8')).find((s) => s.startsWith('INSERT'))!;
      const inDatabase = createClickHouse({ ...env.config, CLICKHOUSE_DATABASE: database });
      try {
        await inDatabase.command(new SqlFragment(backfill));
      } finally {
        await inDatabase.close();
      }
    },
    drop: () => env.ch.command(sql`DROP DATABASE ${identifier(database)}`),
  };
}

describe('migrations', () => {
  it('records every migration file once', async () => {
    const files = await readMigrations();
    const rows = await env.ch.query(sql`SELECT name FROM schema_migrations FINAL ORDER BY version`, tableRow);
    expect(rows.map((r) => r.name)).toEqual(files.map((f) => f.name));
  });

  it('applies nothing the second time', async () => {
    expect(await migrate(env.config)).toEqual([]);
  });

  it('is safe when two processes migrate a fresh database at the same time', async () => {
    const database = `${env.config.CLICKHOUSE_DATABASE}_twin`;
    const [a, b] = await Promise.all([migrate(env.config, { database }), migrate(env.config, { database })]);
    const total = (await readMigrations()).length;
    // Exactly one runner applied each migration; the other found them applied.
    expect([...a, ...b].sort()).toHaveLength(total);
    expect(new Set([...a, ...b]).size).toBe(total);
    await env.ch.command(sql`DROP DATABASE ${identifier(database)}`);
  });

  it('refuses to run when an applied migration file was edited', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    const database = `${env.config.CLICKHOUSE_DATABASE}_edited`;
    await writeFile(path.join(dir, '001_one.sql'), 'CREATE TABLE IF NOT EXISTS t (a UInt8 COMMENT \'a\') ENGINE = TinyLog;');
    await migrate(env.config, { database, dir });
    await writeFile(path.join(dir, '001_one.sql'), 'CREATE TABLE IF NOT EXISTS t (a UInt16 COMMENT \'a\') ENGINE = TinyLog;');
    await expect(migrate(env.config, { database, dir })).rejects.toThrow(/001_one was changed after it was applied/);
    await env.ch.command(sql`DROP DATABASE ${identifier(database)}`);
  });

  it('takes the earlier text that a revised migration names as applied, and applies what comes after it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    const database = `${env.config.CLICKHOUSE_DATABASE}_revised`;
    const first = "CREATE VIEW IF NOT EXISTS v AS SELECT 1 AS a;";
    await writeFile(path.join(dir, '001_one.sql'), first);
    expect(await migrate(env.config, { database, dir })).toEqual(['001_one']);

    const sha = createHash('sha256').update(first).digest('hex');
    await writeFile(path.join(dir, '001_one.sql'), `-- revises: ${sha}\nSELECT 1;`);
    await writeFile(path.join(dir, '002_two.sql'), 'DROP TABLE IF EXISTS v;\nCREATE VIEW v AS SELECT 2 AS a;');
    expect(await migrate(env.config, { database, dir })).toEqual(['002_two']);
    const [row] = await env.ch.query(sql`SELECT a FROM ${identifier(database)}.v`, z.object({ a: z.coerce.number() }));
    expect(row).toEqual({ a: 2 });

    // A revision names the text it replaces; any other earlier text is still refused.
    await writeFile(path.join(dir, '001_one.sql'), `-- revises: ${'0'.repeat(64)}\nSELECT 1;`);
    await expect(migrate(env.config, { database, dir })).rejects.toThrow(/001_one was changed after it was applied/);
    await env.ch.command(sql`DROP DATABASE ${identifier(database)}`);
  });

  it('counts the followers of a working set written before follower counts were kept, once (048)', async () => {
    const before = await databaseBefore('048_follower_counts_and_ranked.sql');
    const { db } = before;
    // Snapshot 5's working set: profiles 1 and 3 follow 2, 1 follows 3.
    await env.ch.command(sql`INSERT INTO ${db}.mat_follow_edges (snapshot_id, src, dst, src_degree, src_weight) VALUES (5, 1, 2, 2, 0.5), (5, 3, 2, 1, 0.6), (5, 1, 3, 2, 0.5)`);
    const counts = () =>
      env.ch.query(sql`SELECT snapshot_id, pid, followers FROM ${db}.mat_follower_counts ORDER BY pid`, z.object({ snapshot_id: z.coerce.number(), pid: z.coerce.number(), followers: z.coerce.number() }));

    expect(await before.apply()).toEqual(['048_follower_counts_and_ranked']);
    const expected = [{ snapshot_id: 5, pid: 2, followers: 2 }, { snapshot_id: 5, pid: 3, followers: 1 }];
    expect(await counts()).toEqual(expected);
    await before.runBackfillAgain();
    expect(await counts()).toEqual(expected);
    await before.drop();
  });

  it('copies the follows a database holds into follows_by_followee, and keeps it in step after (053)', async () => {
    const before = await databaseBefore('053_follows_by_followee.sql');
    const { db } = before;
    const follow = (follower: string, followee: string, active: number, at: string) =>
      env.ch.command(sql`
        INSERT INTO ${db}.follows (follower_profile_id, followee_profile_id, followed_at, unfollowed_at, active, updated_at, ingested_at)
        VALUES (${follower}, ${followee}, toDateTime('2026-01-01 00:00:00'), ${active ? null : sql`toDateTime(${at})`}, ${active}, toDateTime(${at}), now())`);
    // a follows b, then stops; c follows b; a follows c.
    await follow('a', 'b', 1, '2026-01-01 00:00:00');
    await follow('a', 'b', 0, '2026-02-01 00:00:00');
    await follow('c', 'b', 1, '2026-01-01 00:00:00');
    await follow('a', 'c', 1, '2026-01-01 00:00:00');
    const followersOf = async (who: string) =>
      (
        await env.ch.query(
          sql`SELECT follower_profile_id FROM ${db}.follows_by_followee FINAL WHERE followee_profile_id = ${who} AND active = 1 ORDER BY follower_profile_id`,
          z.object({ follower_profile_id: z.string() }),
        )
      ).map((r) => r.follower_profile_id);

    expect(await before.apply()).toEqual(['053_follows_by_followee']);
    expect(await followersOf('b')).toEqual(['c']);
    expect(await followersOf('c')).toEqual(['a']);
    // Written to follows after the migration: the view copies it.
    await follow('c', 'b', 0, '2026-03-01 00:00:00');
    await follow('b', 'c', 1, '2026-03-01 00:00:00');
    expect(await followersOf('b')).toEqual([]);
    expect(await followersOf('c')).toEqual(['a', 'b']);
    await before.drop();
  });

  it('writes the popular list of a working set written before it was kept, once (054)', async () => {
    const before = await databaseBefore('054_popular_list.sql');
    const { db } = before;
    // Snapshot 5: 2 has three followers (1, 3, 4), 3 two (1, 4), 4 two (1, 3): 3 and 4 tie, the lower id first.
    // Each profile's most followed follower has src_rank 1.
    await env.ch.command(sql`INSERT INTO ${db}.mat_follower_counts (snapshot_id, pid, followers) VALUES (5, 2, 3), (5, 3, 2), (5, 4, 2)`);
    await env.ch.command(sql`
      INSERT INTO ${db}.mat_fof_edges (snapshot_id, src, dst, src_degree, src_weight, dst_rank, src_rank)
      VALUES (5, 3, 2, 2, 0.5, 1, 1), (5, 4, 2, 2, 0.5, 1, 2), (5, 1, 2, 3, 0.5, 1, 3), (5, 4, 3, 2, 0.5, 2, 1), (5, 1, 3, 3, 0.5, 2, 2), (5, 3, 4, 2, 0.5, 2, 1), (5, 1, 4, 3, 0.5, 3, 2)`);
    const popular = () =>
      env.ch.query(
        sql`SELECT snapshot_id, place, pid, followers, subject_pid FROM ${db}.mat_popular ORDER BY place`,
        z.object({ snapshot_id: z.coerce.number(), place: z.coerce.number(), pid: z.coerce.number(), followers: z.coerce.number(), subject_pid: z.coerce.number() }),
      );

    expect(await before.apply()).toEqual(['054_popular_list']);
    const expected = [
      { snapshot_id: 5, place: 1, pid: 2, followers: 3, subject_pid: 3 },
      { snapshot_id: 5, place: 2, pid: 3, followers: 2, subject_pid: 4 },
      { snapshot_id: 5, place: 3, pid: 4, followers: 2, subject_pid: 3 },
    ];
    expect(await popular()).toEqual(expected);
    await before.runBackfillAgain();
    expect(await popular()).toEqual(expected);
    await before.drop();
  });

  it('indexes the transfers a database holds by address, keeps the index in step after, and a second copy adds no key (055)', async () => {
    const before = await databaseBefore('055_transfers_by_address.sql');
    const { db } = before;
    const ZERO = '0x0000000000000000000000000000000000000000';
    const transaction = (hash: string, from: string, to: string) =>
      env.ch.command(sql`INSERT INTO ${db}.transactions (chain_id, hash, block_number, block_time, from_address, to_address, value, ingested_at)
                         VALUES (1, ${hash}, 5, now(), ${from}, ${to}, '1', now())`);
    const tokenTransfer = (hash: string, log: number, from: string, to: string) =>
      env.ch.command(sql`INSERT INTO ${db}.token_transfers (chain_id, contract, from_address, to_address, value, tx_hash, log_index, block_number, block_time, ingested_at)
                         VALUES (1, '0xc0', ${from}, ${to}, '9', ${hash}, ${log}, 6, NULL, now())`);
    const nftTransfer = (hash: string, log: number, token: string, from: string, to: string) =>
      env.ch.command(sql`INSERT INTO ${db}.nft_transfers (chain_id, contract, token_id, from_address, to_address, amount, standard, block_number, block_time, log_index, tx_hash, ingested_at)
                         VALUES (1, '0xc1', ${token}, ${from}, ${to}, 1, 'ERC-721', 7, now(), ${log}, ${hash}, now())`);
    const keyRow = z.object({ address: z.string(), source: z.string(), tx_hash: z.string(), log_index: z.coerce.number(), token_id: z.string() });
    const keys = () =>
      env.ch.query(
        sql`SELECT address, source, tx_hash, log_index, token_id FROM ${db}.transfers_by_address FINAL
            WHERE address_hash = cityHash64(address) ORDER BY address, source, tx_hash, log_index`,
        keyRow,
      );
    // a pays b; a creates a contract (no recipient); b sends a token to c; c mints NFT 7.
    await transaction('0xt1', '0xa', '0xb');
    await transaction('0xt2', '0xa', '');
    await tokenTransfer('0xt3', 4, '0xb', '0xc');
    await nftTransfer('0xt4', 2, '7', ZERO, '0xc');

    expect(await before.apply()).toEqual(['055_transfers_by_address']);
    const held = [
      { address: '0xa', source: 'transactions', tx_hash: '0xt1', log_index: 0, token_id: '' },
      { address: '0xa', source: 'transactions', tx_hash: '0xt2', log_index: 0, token_id: '' },
      { address: '0xb', source: 'token_transfers', tx_hash: '0xt3', log_index: 4, token_id: '' },
      { address: '0xb', source: 'transactions', tx_hash: '0xt1', log_index: 0, token_id: '' },
      { address: '0xc', source: 'nft_transfers', tx_hash: '0xt4', log_index: 2, token_id: '7' },
      { address: '0xc', source: 'token_transfers', tx_hash: '0xt3', log_index: 4, token_id: '' },
    ];
    expect(await keys()).toEqual(held);
    await before.runBackfillAgain();
    expect(await keys()).toEqual(held);
    // Written after the migration: the views index it.
    await nftTransfer('0xt5', 1, '7', '0xc', '0xd');
    expect((await keys()).filter((k) => k.tx_hash === '0xt5')).toEqual([
      { address: '0xc', source: 'nft_transfers', tx_hash: '0xt5', log_index: 1, token_id: '7' },
      { address: '0xd', source: 'nft_transfers', tx_hash: '0xt5', log_index: 1, token_id: '7' },
    ]);
    await before.drop();
  });

  it('drops the SQL ranking\'s scratch tables and keeps the snapshots\' rows, which may then name the new reasons (057)', async () => {
    const before = await databaseBefore('057_in_memory_ranking.sql');
    const { db } = before;
    await env.ch.command(sql`
      INSERT INTO ${db}.recommendations (snapshot_id, bucket, profile_id, rank, candidate_id, score, reason_kind, reason_chain_id, reason_subject, social_score, counterparty_score, nft_score, fof_score)
      VALUES (3, 0, 'p_a', 1, 'p_b', 1.5, 'friend_of_friend', 0, 'p_c', 0, 0, 0, 1.5)`);
    const tables = async () => (await env.ch.query(sql`SELECT name FROM system.tables WHERE database = ${before.db.text.replace(/`/g, '')} ORDER BY name`, tableRow)).map((t) => t.name);
    expect((await tables()).filter((t) => t.startsWith('mat_')).length).toBe(29);

    expect(await before.apply()).toEqual(['057_in_memory_ranking']);
    expect((await tables()).filter((t) => t.startsWith('mat_'))).toEqual([]);
    expect(await tables()).toContain('ranking_models');
    await env.ch.command(sql`
      INSERT INTO ${db}.recommendations (snapshot_id, bucket, profile_id, rank, candidate_id, score, reason_kind, reason_chain_id, reason_subject, social_score, counterparty_score, nft_score, fof_score)
      VALUES (3, 0, 'p_a', 2, 'p_d', 1, 'follows_you', 0, '', 0, 0, 0, 1), (3, 0, 'p_a', 3, 'p_e', 0, 'popular', 0, '', 0, 0, 0, 0), (3, 0, 'p_a', 4, 'p_f', 0.5, 'network', 0, '', 0, 0, 0, 0.5)`);
    const kept = await env.ch.query(
      sql`SELECT candidate_id, toString(reason_kind) AS kind FROM ${db}.recommendations ORDER BY rank`,
      z.object({ candidate_id: z.string(), kind: z.string() }),
    );
    expect(kept).toEqual([
      { candidate_id: 'p_b', kind: 'friend_of_friend' },
      { candidate_id: 'p_d', kind: 'follows_you' },
      { candidate_id: 'p_e', kind: 'popular' },
      { candidate_id: 'p_f', kind: 'network' },
    ]);
    await before.drop();
  });

  it('gives every column of every table a comment, for analysts', async () => {
    // Views take their columns' meaning from the tables they read; ClickHouse 18.16 cannot comment them.
    const database = env.config.CLICKHOUSE_DATABASE;
    const columns = await env.ch.query(
      sql`SELECT table, name, comment FROM system.columns
          WHERE database = ${database}
            AND table IN (SELECT name FROM system.tables WHERE database = ${database} AND engine NOT LIKE '%View')`,
      columnRow,
    );
    expect(columns.length).toBeGreaterThan(50);
    expect(columns.filter((c) => c.comment.trim() === '').map((c) => `${c.table}.${c.name}`)).toEqual([]);
  });
});
