/**
 * Where each table lives on a ClickHouse cluster (CLICKHOUSE_CLUSTER), and the migrations'
 * statements rewritten for it. The migration files stay the one description of the schema:
 * on a single server they run as written; on a cluster each statement becomes its
 * ON CLUSTER form here, so the two cannot drift apart.
 *
 * Two placements (docs/cluster.md):
 * - sharded: a Replicated* table `<name>_local` on every node (one replica set per shard)
 *   and a Distributed table `<name>` over them, which is what the application reads and
 *   inserts into. The sharding key is a function of the table's ORDER BY columns only, so
 *   every version of a row (same replacing key) lands on the same shard and FINAL still
 *   collapses them: a retried insert never shows twice.
 * - everywhere: one Replicated* table `<name>` whose replicas are all nodes (ZooKeeper path
 *   under /all/): small tables every node joins or checks locally (labels, collections,
 *   issuers, API keys, snapshot status, ranking models, chain state), and the SQL ranking's
 *   old working set (mat_*) until migration 057 drops it.
 *
 * A table the plan does not name stops the migration: a new table must choose its placement.
 */
import type { ClickHouse } from './client.ts';
import { liveNodesByShard, onFirstThatAnswers } from './cluster-hosts.ts';
import { identifier, quoteString, SqlFragment } from './sql-literal.ts';

export type Placement = { kind: 'sharded'; key: string } | { kind: 'everywhere' };

const sharded = (key: string): Placement => ({ kind: 'sharded', key });
const everywhere: Placement = { kind: 'everywhere' };

/**
 * Sharding keys: profiles and what hangs off a profile by its id, so a profile's follows,
 * invites, recommendations and tags sit on its shard; events by their own hash (their
 * replacing key; they join profiles by address, which no key can co-locate).
 */
export const TABLE_PLACEMENT: Readonly<Record<string, Placement>> = {
  profiles: sharded('cityHash64(profile_id)'),
  profile_identities: sharded('cityHash64(identifier)'),
  follows: sharded('cityHash64(follower_profile_id)'),
  // Filled by a materialized view on each shard's follows_local, like sbt_mints_by_owner below.
  follows_by_followee: sharded('cityHash64(follower_profile_id)'),
  social_follows: sharded('cityHash64(follower)'),
  invites: sharded('cityHash64(invitee_profile_id)'),
  transactions: sharded('cityHash64(hash)'),
  token_transfers: sharded('cityHash64(tx_hash)'),
  nft_transfers: sharded('cityHash64(tx_hash)'),
  // Filled by materialized views on each shard's transfer tables: a key sits on its transfer's shard.
  transfers_by_address: sharded('cityHash64(tx_hash)'),
  // sbt_mints_by_owner is filled by a materialized view on each shard's sbt_mints_local:
  // the same key keeps a direct insert on the shard the view writes to.
  sbt_mints: sharded('cityHash64(contract, token_id)'),
  sbt_mints_by_owner: sharded('cityHash64(contract, token_id)'),
  ingest_rejects: sharded('cityHash64(source, line)'),
  recommendations: sharded('cityHash64(profile_id)'),
  profile_tags: sharded('cityHash64(profile_id)'),

  address_labels: everywhere,
  nft_collections: everywhere,
  sbt_issuers: everywhere,
  sbt_mint_sources: everywhere,
  api_keys: everywhere,
  recommendation_snapshots: everywhere,
  chain_blocks: everywhere,
  chain_checkpoints: everywhere,
  chain_ranges: everywhere,
  chain_address_codes: everywhere,
  schema_migrations: everywhere,
  ranking_models: everywhere,

  // The SQL ranking's working set: created by migrations 010-056, dropped by 057.
  mat_profiles: everywhere,
  mat_addresses: everywhere,
  mat_follow_edges: everywhere,
  mat_new_followers: everywhere,
  mat_follower_counts: everywhere,
  mat_social_follows: everywhere,
  mat_excluded_addresses: everywhere,
  mat_interactions: everywhere,
  mat_holdings: everywhere,
  mat_collections: everywhere,
  mat_collection_holders: everywhere,
  mat_fof_edges: everywhere,
  mat_collection_candidates: everywhere,
  mat_first_hops: everywhere,
  mat_follower_hops: everywhere,
  mat_fof_forward: everywhere,
  mat_fof_back: everywhere,
  mat_popular: everywhere,
  mat_scoring_fit: everywhere,
  mat_path_counts: everywhere,
  mat_path_budget: everywhere,
  mat_held_out_follows: everywhere,
  mat_held_out_places: everywhere,
  mat_path_weight_fit: everywhere,
  mat_follow_times: everywhere,
  mat_recency_fit: everywhere,
  mat_unnamed_paths_fit: everywhere,
  mat_ranked: everywhere,
  mat_bucket_follows: everywhere,
};

export interface ClusterTarget {
  cluster: string;
  database: string;
}

/** The local (Replicated) table behind a sharded table's Distributed one. */
export function localTableName(table: string): string {
  return `${table}_local`;
}

/**
 * The target of an ALTER that works on a table's parts (ALTER ... DELETE, ALTER ... DROP
 * PARTITION): the table itself on one server and for a table replicated everywhere
 * (replication carries the change to every replica); on a cluster, a sharded table's local
 * tables ON CLUSTER, since a Distributed table has no parts. ClickHouse runs such an ALTER on
 * one replica of each shard (measured on 18.16: one mutation, the other replica follows).
 * Not for OPTIMIZE, which 18.16 takes only where there is something to merge
 * (pipeline/maintenance/compact-tables.ts). alterOnEveryShard runs such an ALTER.
 */
export function partsTarget(ch: { database: string; cluster?: string }, table: string): SqlFragment {
  if (!ch.cluster || placementOf(table).kind !== 'sharded') return identifier(table);
  return new SqlFragment(`${identifier(ch.database).text}.${identifier(localTableName(table)).text} ON CLUSTER ${identifier(ch.cluster).text}`);
}

/** How long an ALTER waits for a shard to elect a replication leader when its leader died: ZooKeeper's default session timeout (30 s), twice. */
const LEADER_ELECTION_MS = 60_000;

/**
 * An ALTER of a table's parts (`alter` gets the table to name) on every shard. With node
 * clients (CLICKHOUSE_NODE_URLS) a sharded table's ALTER goes, without ON CLUSTER, to one
 * node of each shard that answers (the next one if it dies meanwhile): a Replicated table
 * takes it from any replica into its replication log, so the others, down ones included,
 * apply it from there, and sent to each replica a DELETE would be done twice. A shard none of
 * whose nodes answers fails the ALTER: its rows would stay untouched; one whose live nodes
 * cannot reach its dead leader gets the ALTER once another replica leads. Without node clients
 * it goes ON CLUSTER (partsTarget), which 18.16 hands to one host per shard and waits for: a
 * dead host makes it fail after distributed_ddl_task_timeout, its shard's rows untouched
 * (measured on the local cluster: a retried bucket's partition drop waited 180 s for a
 * killed replica, then failed the run).
 */
export async function alterOnEveryShard(ch: ClickHouse, table: string, alter: (target: SqlFragment) => SqlFragment): Promise<void> {
  if (ch.nodes.length === 0 || placementOf(table).kind !== 'sharded') return ch.command(alter(partsTarget(ch, table)));
  const statement = alter(identifier(localTableName(table)));
  await Promise.all((await liveNodesByShard(ch)).map((replicas) => onFirstThatAnswers(replicas, (node) => node.command(statement), LEADER_ELECTION_MS)));
}

/** The name under which system.parts lists a table's parts on a node: the local table of a sharded one. */
export function partsTableName(ch: { database: string; cluster?: string }, table: string): string {
  return ch.cluster && placementOf(table).kind === 'sharded' ? localTableName(table) : table;
}

export function placementOf(table: string): Placement {
  const placement = TABLE_PLACEMENT[table];
  if (!placement) throw new Error(`table ${table} has no cluster placement: add it to TABLE_PLACEMENT in shared/clickhouse/cluster-schema.ts`);
  return placement;
}

/**
 * One migration statement as the cluster runs it (one or more statements). `version` keeps
 * ZooKeeper paths apart when a migration drops and recreates a table under the same name.
 */
export function clusterStatements(statement: string, version: number, target: ClusterTarget): string[] {
  const text = statement.replace(/^\s*--.*$/gm, '').trim();
  const on = `ON CLUSTER ${identifier(target.cluster).text}`;
  const db = identifier(target.database).text;

  const create = /^CREATE TABLE (IF NOT EXISTS )?(\w+)\s*(\([\s\S]*\))\s*ENGINE\s*=\s*(\w+)(?:\(([^)]*)\))?([\s\S]*)$/.exec(text);
  if (create) {
    const [, ifNotExists = '', table, columns, engine, engineArgs = '', rest] = create as unknown as string[];
    return createTable({ ifNotExists, table: table!, columns: columns!, engine: engine!, engineArgs, rest: rest!, version, on, db, target });
  }
  const view = /^CREATE VIEW (IF NOT EXISTS )?(\w+) AS\b([\s\S]*)$/.exec(text);
  // Each node checks a view's SELECT in its default database when the statement reaches it: its tables are named in full.
  if (view) return [`CREATE VIEW ${view[1] ?? ''}${db}.${view[2]} ${on} AS${qualifiedTables(view[3]!, db)}`];
  const materialized = /^CREATE MATERIALIZED VIEW (IF NOT EXISTS )?(\w+) TO (\w+) AS\b([\s\S]*)$/.exec(text);
  if (materialized) {
    const [, ifNotExists = '', name, to, select] = materialized as unknown as string[];
    // Each shard's view feeds that shard's local table from that shard's local source.
    const target = placementOf(to!).kind === 'sharded' ? localTableName(to!) : to!;
    const localSelect = select!.replace(/\bFROM (\w+)/g, (_, source: string) => `FROM ${db}.${placementOf(source).kind === 'sharded' ? localTableName(source) : source}`);
    return [`CREATE MATERIALIZED VIEW ${ifNotExists}${db}.${name} ${on} TO ${db}.${target} AS${localSelect}`];
  }
  const drop = /^DROP TABLE IF EXISTS (\w+)$/.exec(text);
  if (drop) {
    const table = drop[1]!;
    const placement = TABLE_PLACEMENT[table];
    const local = placement?.kind === 'sharded' ? [`DROP TABLE IF EXISTS ${db}.${localTableName(table)} ${on}`] : [];
    return [`DROP TABLE IF EXISTS ${db}.${table} ${on}`, ...local];
  }
  const addColumn = /^ALTER TABLE (\w+) ADD COLUMN ([\s\S]+)$/.exec(text);
  if (addColumn) {
    const table = addColumn[1]!;
    // A sharded table would need its local tables ON CLUSTER and its Distributed one changed alike: none has needed it yet.
    if (placementOf(table).kind !== 'everywhere') throw new Error(`no cluster form for adding a column to the sharded table ${table}`);
    // One replica takes it into the table's replication log, and every other replica, a down one
    // once it is back, applies it from there; ON CLUSTER would run it once per shard, and the
    // second would find the column there already.
    return [`ALTER TABLE ${db}.${table} ADD COLUMN ${withoutComments(` ${addColumn[2]!}`).trim()}`];
  }
  const modifyColumn = /^ALTER TABLE (\w+) MODIFY COLUMN ([\s\S]+)$/.exec(text);
  if (modifyColumn) {
    const table = modifyColumn[1]!;
    const column = withoutComments(` ${modifyColumn[2]!}`).trim();
    // A sharded table's local tables take it once per shard (a Replicated table's replicas from
    // its replication log). Its Distributed table, which holds no rows, is made again over them
    // with their new structure: ClickHouse 18.16 refuses an ALTER ON CLUSTER of a table that is
    // not replicated on a cluster whose shards are ("Table ... isn't replicated").
    const placement = placementOf(table);
    if (placement.kind === 'sharded') {
      const local = localTableName(table);
      return [
        `ALTER TABLE ${db}.${local} ${on} MODIFY COLUMN ${column}`,
        `DROP TABLE IF EXISTS ${db}.${table} ${on}`,
        `CREATE TABLE ${db}.${table} ${on} AS ${db}.${local} ENGINE = Distributed(${quoteString(target.cluster)}, ${quoteString(target.database)}, ${quoteString(local)}, ${placement.key})`,
      ];
    }
    return [`ALTER TABLE ${db}.${table} MODIFY COLUMN ${column}`];
  }
  if (rewordsAComment(text)) return [];
  // INSERT ... SELECT runs once: through a Distributed table, or into a table replicated everywhere.
  if (/^INSERT INTO \w+/.test(text)) return [text];
  throw new Error(`no cluster form for migration statement: ${text.slice(0, 80)}`);
}

/**
 * A migration statement that only rewords a column's comment: nothing to do on a cluster,
 * whose replicated tables hold no comments (withoutComments).
 */
export function rewordsAComment(statement: string): boolean {
  return /^ALTER TABLE \w+ COMMENT COLUMN \w+ '/.test(statement.replace(/^\s*--.*$/gm, '').trim());
}

/** Every table after FROM or JOIN named with its database (subqueries and table functions are left alone). */
function qualifiedTables(select: string, db: string): string {
  return select.replace(/\b(FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*[.(])/g, (_, keyword: string, table: string) => `${keyword} ${db}.${table}`);
}

interface CreateTable {
  ifNotExists: string;
  table: string;
  columns: string;
  engine: string;
  engineArgs: string;
  rest: string;
  version: number;
  on: string;
  db: string;
  target: ClusterTarget;
}

function createTable(c: CreateTable): string[] {
  if (!/MergeTree$/.test(c.engine)) throw new Error(`table ${c.table}: only MergeTree engines can be replicated, not ${c.engine}`);
  const placement = placementOf(c.table);
  const local = placement.kind === 'sharded' ? localTableName(c.table) : c.table;
  const zooKeeperPath = `/clickhouse/tables/${placement.kind === 'sharded' ? '{shard}' : 'all'}/${c.target.database}/${local}/${c.version}`;
  const replicatedArgs = [quoteString(zooKeeperPath), quoteString('{replica}'), ...(c.engineArgs.trim() ? [c.engineArgs.trim()] : [])].join(', ');
  const columns = withoutComments(c.columns);
  const statements = [`CREATE TABLE ${c.ifNotExists}${c.db}.${local} ${c.on} ${columns} ENGINE = Replicated${c.engine}(${replicatedArgs})${c.rest}`];
  if (placement.kind === 'sharded') {
    const cluster = quoteString(c.target.cluster);
    statements.push(
      `CREATE TABLE ${c.ifNotExists}${c.db}.${c.table} ${c.on} AS ${c.db}.${local} ENGINE = Distributed(${cluster}, ${quoteString(c.target.database)}, ${quoteString(local)}, ${placement.key})`,
    );
  }
  return statements;
}

/**
 * The column list without COMMENT clauses. ClickHouse 18.16 escapes a comment twice in the
 * columns it writes to ZooKeeper, so every replica but the first finds the structure "too
 * different" and refuses to start (measured on the local cluster: a plain column passes,
 * COMMENT 'x' fails). On a cluster the migration files are where the columns are described.
 */
export function withoutComments(columns: string): string {
  return columns.replace(/\s+COMMENT\s+'(?:[^'\\]|''|\\.)*'/g, '');
}
