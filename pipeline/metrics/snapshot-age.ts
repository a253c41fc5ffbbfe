/**
 * soulgraph_snapshot_age_seconds: time since the newest ready recommendation snapshot
 * became ready, read from ClickHouse at scrape time. +Inf while no snapshot is ready (the
 * API then answers empty recommendations), so an alert on age also catches "never built".
 */
import { Gauge, type Registry } from 'prom-client';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { listSnapshots } from '../materialize/publish/snapshots.ts';

export function registerSnapshotAge(registry: Registry, ch: ClickHouse, now = () => Date.now() / 1000): void {
  new Gauge({
    name: 'soulgraph_snapshot_age_seconds',
    help: 'Seconds since the newest ready recommendation snapshot became ready (+Inf while none is)',
    registers: [registry],
    async collect() {
      const newestReady = (await listSnapshots(ch)).filter((s) => s.status === 'ready').at(-1);
      this.set(newestReady ? Math.max(0, now() - newestReady.updated_at) : Infinity);
    },
  });
}
