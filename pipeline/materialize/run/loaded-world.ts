/**
 * The world a worker process ranks from, loaded once per snapshot and shared by every job of
 * that snapshot the process takes (the run's fit, each bucket it ranks), with the rank threads
 * that hold it. A process keeps one: the newest it loaded, which also serves the lists it
 * computes on demand (on-demand-lists.ts) until a newer one replaces it.
 */
import { z } from 'zod';
import type { ClickHouse } from '../../../shared/clickhouse/client.ts';
import { sql } from '../../../shared/clickhouse/sql-literal.ts';
import type { Config } from '../../../shared/config.ts';
import type { Logger } from '../../../shared/logger.ts';
import { engineSettings, materializeQuerySettings, rankSettingsOf } from '../engine-settings.ts';
import type { World } from '../graph/world.ts';
import { loadWorld, type LoadReport } from '../load/world-loader.ts';
import { pathBudget, type PathBudget } from '../rank/path-budget.ts';
import { RankPool } from '../rank/rank-pool.ts';
import type { RankSettings } from '../rank/ranker.ts';
import type { EncoderNames } from '../write/list-encoder.ts';

export interface LoadedWorld {
  /** The snapshot it was loaded for (0: loaded for lists on demand, between runs). */
  snapshotId: number;
  world: World;
  report: LoadReport;
  budget: PathBudget;
  settings: RankSettings;
  /** When it was loaded (unix ms). */
  loadedAt: number;
  /** What rows are named by (write/list-encoder.ts). */
  names: EncoderNames;
  /** The rank threads holding it, started on first use. */
  pool(): Promise<RankPool>;
}

export class WorldCache {
  private held: { snapshotId: number; loading: Promise<LoadedWorld> } | undefined;
  private pools: RankPool[] = [];

  constructor(
    private readonly ch: ClickHouse,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** The world loaded for `snapshotId`, loading it now unless this process holds it already. */
  forSnapshot(snapshotId: number): Promise<LoadedWorld> {
    if (this.held?.snapshotId === snapshotId) return this.held.loading;
    const loading = this.load(snapshotId);
    this.held = { snapshotId, loading };
    // A failed load is not kept: the next job of the snapshot tries again.
    loading.catch(() => {
      if (this.held?.loading === loading) this.held = undefined;
    });
    return loading;
  }

  /** Whether this process holds (or is loading) the world of `snapshotId`. */
  holds(snapshotId: number): boolean {
    return this.held?.snapshotId === snapshotId;
  }

  /** The newest world this process holds (settled), if any. */
  async newest(): Promise<LoadedWorld | undefined> {
    return this.held?.loading.catch(() => undefined);
  }

  /** Waits for a load in progress (its statements are ClickHouse's until they end), then stops the threads. */
  async close(): Promise<void> {
    await this.held?.loading.catch(() => undefined);
    await Promise.all(this.pools.map((pool) => pool.close()));
    this.pools = [];
    this.held = undefined;
  }

  private async load(snapshotId: number): Promise<LoadedWorld> {
    const settings = engineSettings(this.config);
    const { world, report } = await loadWorld(this.ch, settings.load, materializeQuerySettings(this.config));
    const budget = pathBudget(world.follows, settings.pathsPerRun, settings.pathsPerProfile);
    this.logger.info({ snapshotId, ...report, pathCap: budget.cap, pathsInAll: budget.pathsInAll }, 'world loaded');
    const rankSettings = rankSettingsOf(settings, budget);
    const names = await encoderNames(this.ch, world);
    let pool: Promise<RankPool> | undefined;
    // The previous world's threads go with it (its jobs have finished: one run at a time).
    const previous = this.pools.splice(0);
    void Promise.all(previous.map((p) => p.close()));
    return {
      snapshotId,
      world,
      report,
      budget,
      settings: rankSettings,
      loadedAt: Date.now(),
      names,
      pool: () =>
        (pool ??= Promise.resolve().then(() => {
          const started = new RankPool(world, rankSettings, names, settings.threads);
          this.pools.push(started);
          return started;
        })),
    };
  }
}

const typeRow = z.object({ type: z.string() });

/**
 * What the encoder names rows with: every profile id's bytes on shared memory (the threads
 * read them), the collections' names, and reason_kind's type as the table declares it (a Native
 * block must name it exactly).
 */
async function encoderNames(ch: ClickHouse, world: World): Promise<EncoderNames> {
  const [row] = await ch.query(
    sql`SELECT type FROM system.columns WHERE database = ${ch.database} AND table = 'recommendations' AND name = 'reason_kind'`,
    typeRow,
  );
  if (!row) throw new Error('the recommendations table has no reason_kind column: are the migrations applied?');
  const profileBytes = new Uint8Array(new SharedArrayBuffer(Math.max(1, world.profiles.bytes.length)));
  profileBytes.set(world.profiles.bytes);
  const profileOffsets = new Uint32Array(new SharedArrayBuffer(world.profiles.offsets.byteLength));
  profileOffsets.set(world.profiles.offsets);
  return { profileBytes, profileOffsets, collectionNames: world.signals.collections.name, reasonKindType: row.type };
}
