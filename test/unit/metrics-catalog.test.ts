/**
 * The metrics the API and the workers declare, against what docs/operations.md and the
 * alert rules (deploy/prometheus/alerts.yml) name: no documented or alerted series may be
 * missing, and no declared soulgraph_* series may go undocumented.
 */
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createRequestMetrics } from '../../api/server/request-metrics.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { createMetricsRegistry } from '../../shared/metrics/metrics-registry.ts';
import { createPipelineMetrics } from '../../pipeline/metrics/pipeline-metrics.ts';
import { registerQueueDepth } from '../../pipeline/metrics/queue-depth.ts';
import { registerSnapshotAge } from '../../pipeline/metrics/snapshot-age.ts';
import { registerReplicationLag } from '../../pipeline/metrics/replication-lag.ts';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

function declaredMetrics(): string[] {
  const api = new Registry();
  createRequestMetrics(api, ['/healthz']);
  const workers = new Registry();
  createPipelineMetrics(workers);
  registerQueueDepth(workers, []);
  // Collectors run only on a scrape, which this test never does.
  registerSnapshotAge(workers, {} as ClickHouse);
  registerReplicationLag(workers, {} as ClickHouse);
  return [...api.getMetricsAsArray(), ...workers.getMetricsAsArray()].map((m) => m.name);
}

/** Series names as written in PromQL or prose, without the histogram suffixes. */
function mentioned(text: string, prefix = 'soulgraph_'): string[] {
  const names = [...text.matchAll(new RegExp(`\\b(${prefix}[a-z0-9_]+)`, 'g'))].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''));
  return [...new Set(names)].sort();
}

describe('the metrics catalog', () => {
  const declared = declaredMetrics();

  it('declares the series the issue names', () => {
    expect(declared.sort()).toEqual([
      'soulgraph_chain_head_lag_blocks',
      'soulgraph_clickhouse_node_up',
      'soulgraph_clickhouse_replication_behind',
      'soulgraph_http_request_duration_seconds',
      'soulgraph_job_duration_seconds',
      'soulgraph_job_failures_total',
      'soulgraph_queue_jobs',
      'soulgraph_rows_ingested_total',
      'soulgraph_snapshot_age_seconds',
    ]);
  });

  it('is documented in docs/operations.md, series by series, and nothing else is', () => {
    expect(mentioned(read('docs/operations.md'))).toEqual([...declared].sort());
  });

  it('is what the alert rules use', () => {
    const rules = parseYaml(read('deploy/prometheus/alerts.yml')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const exprs = rules.groups.flatMap((g) => g.rules);
    expect(exprs.length).toBeGreaterThanOrEqual(8);
    for (const rule of exprs) {
      for (const name of mentioned(rule.expr)) expect(declared, `${rule.alert} uses ${name}`).toContain(name);
    }
    // Node's process metrics, which the alerts may use too, come from the registry every process creates.
    const processMetrics = createMetricsRegistry().getMetricsAsArray().map((m) => m.name);
    for (const rule of exprs) {
      for (const name of mentioned(rule.expr, 'nodejs_')) expect(processMetrics, `${rule.alert} uses ${name}`).toContain(name);
    }
  });
});
