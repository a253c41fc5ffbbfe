/**
 * The contract between producers (CLI, API) and pipeline workers: queue names and the
 * zod schema of every job payload. A payload that fails its schema can never succeed,
 * so the worker fails it at once without retries.
 */
import { z } from 'zod';
import type { DefaultJobOptions } from 'bullmq';
import type { Config } from './config.ts';
import { kindNames, type KindName } from './records/kinds.ts';

/** One ingestion queue per record kind, so a slow kind never holds up another. */
export function ingestQueueName(kind: KindName): string {
  return `ingest-${kind}`;
}

export const ingestFormats = ['canonical', 'ethereum-etl'] as const;
export type IngestFormat = (typeof ingestFormats)[number];

const chunkOrigin = {
  kind: z.enum(kindNames as [KindName, ...KindName[]]),
  source: z.string().min(1).max(1024),
  format: z.enum(ingestFormats),
  /** Chain id for formats whose rows carry none (ethereum-etl). */
  chainId: z.number().int().min(1).optional(),
};

/**
 * A JSON Lines chunk as one block of text: the source lines as they are, `firstLine` being
 * the 1-based source line of its first one (blank lines count and are skipped), so every
 * reject names its line. One string instead of one per line: the producer never splits the
 * file into lines, and BullMQ (de)serialises and zod checks one value instead of thousands.
 */
export const jsonLinesChunkSchema = z.object({
  ...chunkOrigin,
  text: z.string(),
  firstLine: z.number().int().min(1),
});

/**
 * A JSON Lines chunk whose text is stored apart, under the job's chunk-text key
 * (pipeline/ingest/chunk-texts.ts), `textBytes` bytes of UTF-8: what `soulgraph ingest`
 * sends since 2026-11-23. BullMQ then moves a few hundred bytes per job instead of the
 * chunk's megabytes. Jobs of the inline shape above are still accepted (the API sends one
 * record that way, and jobs queued before the change still run).
 */
export const storedJsonLinesChunkSchema = z.object({
  ...chunkOrigin,
  textBytes: z.number().int().min(0),
  firstLine: z.number().int().min(1),
});

/** A CSV record that is not valid CSV: the worker writes it as a reject. */
export const malformedRecordSchema = z.object({ line: z.number().int().min(1), reason: z.string(), raw: z.string() });
export type MalformedRecord = z.infer<typeof malformedRecordSchema>;

/**
 * A CSV chunk: rows as arrays of cells with the file's `header`; `lines[i]` is the 1-based
 * source line of `rows[i]` (a quoted cell may span lines, so they are not consecutive);
 * `malformed`, the chunk's records that are not valid CSV.
 */
export const csvChunkSchema = z
  .object({
    ...chunkOrigin,
    header: z.array(z.string()),
    rows: z.array(z.array(z.string())),
    lines: z.array(z.number().int().min(1)),
    malformed: z.array(malformedRecordSchema).optional(),
  })
  .refine((j) => j.rows.length === j.lines.length, 'rows and lines must have the same length');

/** One chunk of a source file as queued: JSON Lines text (inline or stored apart) or CSV rows. */
export const ingestJobSchema = z.union([jsonLinesChunkSchema, storedJsonLinesChunkSchema, csvChunkSchema]);

export type IngestJobPayload = z.infer<typeof ingestJobSchema>;
export type JsonLinesChunk = z.infer<typeof jsonLinesChunkSchema>;
export type StoredJsonLinesChunk = z.infer<typeof storedJsonLinesChunkSchema>;
export type CsvChunk = z.infer<typeof csvChunkSchema>;
/** A JSON Lines chunk as a worker ingests it: its text inline, or the stored bytes as fetched (not decoded). */
export type JsonLinesText = Omit<JsonLinesChunk, 'text'> & { text: string | Buffer };
/** A chunk as a worker ingests it. */
export type IngestJob = JsonLinesText | CsvChunk;

export const rejectSampleSchema = z.object({ line: z.number(), reason: z.string() });
export const ingestResultSchema = z.object({
  accepted: z.number(),
  rejected: z.number(),
  /** The first few rejects, for the CLI's summary; all of them are in ingest_rejects. */
  rejectSamples: z.array(rejectSampleSchema),
});
export type IngestResult = z.infer<typeof ingestResultSchema>;

/**
 * Retries with exponential backoff. A chunk's rows (~13 MB for 50,000 transactions) stay in
 * Redis as long as its job (in the payload, or as its stored text), and Redis runs with
 * noeviction, so finished jobs are kept only in bounded numbers: producers read results
 * from completion events (20 completed jobs are more than a run's unfinished ones, for the
 * tracker's fallback), and failed jobs stay for inspection and retry.
 */
export function ingestJobOptions(config: Config): DefaultJobOptions {
  return {
    attempts: config.INGEST_JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3600, count: 20 },
    removeOnFail: { age: 7 * 24 * 3600, count: 100 },
  };
}

/** Housekeeping jobs (run by the scheduler). */
export const MAINTENANCE_QUEUE = 'maintenance';
export const maintenanceJobSchema = z.object({ task: z.literal('compact-tables') });
export type MaintenanceJob = z.infer<typeof maintenanceJobSchema>;

/**
 * Nightly materialization (pipeline/materialize). A `run` job (one at a time) loads the world
 * and fits the ranking model, then adds a flow to the steps queue: one `bucket` job per bucket
 * of profiles (ranked by whichever worker process takes it), a `tags` job and a `mirrors` job
 * (re-syncs the serving copy's profile and follow mirrors), under a `complete` parent that
 * marks the snapshot ready once all succeeded.
 */
export const MATERIALIZE_QUEUE = 'materialize';
export const MATERIALIZE_STEPS_QUEUE = 'materialize-steps';
/** On-demand recommendations for a profile the newest snapshot does not cover yet. */
export const COLD_START_QUEUE = 'recommend-cold-start';

export const materializeRunJobSchema = z.object({
  /** Who asked: the nightly scheduler entry, the CLI, ... (shown in logs and status). */
  trigger: z.string().min(1).max(64),
  /** Set by the run itself once it has taken a snapshot id, so that a resumed run continues it. */
  snapshotId: z.number().int().min(1).optional(),
});
export type MaterializeRunJob = z.infer<typeof materializeRunJobSchema>;

export const materializeStepJobSchema = z.discriminatedUnion('step', [
  z.object({
    step: z.literal('bucket'),
    snapshotId: z.number().int().min(1),
    bucket: z.number().int().min(0),
    buckets: z.number().int().min(1),
    /** The run's ranking model (pipeline/materialize/rank/ranking-model.ts), checked where it is used. */
    model: z.object({ weights: z.array(z.number()).max(64), source: z.enum(['fitted', 'default']) }),
  }),
  z.object({ step: z.literal('tags'), snapshotId: z.number().int().min(1) }),
  z.object({ step: z.literal('mirrors'), snapshotId: z.number().int().min(1) }),
  z.object({ step: z.literal('complete'), snapshotId: z.number().int().min(1), buckets: z.number().int().min(1) }),
]);
export type MaterializeStepJob = z.infer<typeof materializeStepJobSchema>;

export const coldStartJobSchema = z.object({
  snapshotId: z.number().int().min(1),
  profileId: z.string().min(1).max(128),
});
export type ColdStartJob = z.infer<typeof coldStartJobSchema>;

/** One job id per (snapshot, profile): concurrent requests for the same new user share one computation. */
export function coldStartJobId(job: ColdStartJob): string {
  return `cold-${job.snapshotId}-${Buffer.from(job.profileId).toString('base64url')}`;
}

/**
 * On-chain ingestion (pipeline/chain): a `range` job writes one block range of one chain
 * (backfill; job id `range-<chain>-<from>-<to>`, so a re-run adds no duplicate); a `follow`
 * job (the scheduler's chain-follow entry, one per configured chain) ingests from the
 * chain's checkpoint up to its head minus the confirmations, rolling back reorgs.
 */
export const CHAIN_QUEUE = 'chain';

export const chainJobSchema = z.discriminatedUnion('task', [
  z
    .object({
      task: z.literal('range'),
      chainId: z.number().int().min(1),
      fromBlock: z.number().int().min(0),
      toBlock: z.number().int().min(0),
    })
    .refine((j) => j.toBlock >= j.fromBlock, 'toBlock must not be below fromBlock'),
  z.object({
    task: z.literal('follow'),
    chainId: z.number().int().min(1),
    /** Where to start when the chain has no checkpoint yet (default: the current safe head). */
    fromBlock: z.number().int().min(0).optional(),
  }),
]);
export type ChainJob = z.infer<typeof chainJobSchema>;

export function chainRangeJobId(chainId: number, fromBlock: number, toBlock: number): string {
  return `range-${chainId}-${fromBlock}-${toBlock}`;
}

export const chainJobResultSchema = z.object({
  chainId: z.number(),
  from: z.number(),
  to: z.number(),
  blocks: z.number(),
  transactions: z.number(),
  logs: z.number(),
  skipped: z.boolean(),
  /** Follow jobs: the head seen and the blocks rolled back by a reorg. */
  head: z.number().optional(),
  rolledBack: z.number().optional(),
});
export type ChainJobResult = z.infer<typeof chainJobResultSchema>;

export function chainJobOptions(config: Config): DefaultJobOptions {
  return {
    attempts: config.CHAIN_JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 3600, count: 1_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 500 },
  };
}

/** Every queue of the pipeline (the status command and the scheduler walk them all). */
export function allQueueNames(): string[] {
  return [...kindNames.map(ingestQueueName), MAINTENANCE_QUEUE, MATERIALIZE_QUEUE, MATERIALIZE_STEPS_QUEUE, COLD_START_QUEUE, CHAIN_QUEUE];
}
