/**
 * The world `npm start` loads (pipeline/demo-world.ts: DEMO_PROFILES profiles of seed
 * DEMO_SEED plus the demo users), ingested through the real queues and materialized, behind
 * a real API with real custodians: what docs/api.md, docs/sdk.md and README.md talk to.
 * Loading it takes a while, so one test file loads it once and runs every doc against it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ingestDemoWorld } from '../../pipeline/demo-world.ts';
import { demoPlan, type DemoPlan } from '../../pipeline/generate/demo-users.ts';
import { createWorld } from '../../pipeline/generate/world.ts';
import { startWorkers } from '../../pipeline/workers.ts';
import { useApi, type ApiHarness } from './api-harness.ts';
import { useCustodians, type CustodianHarness } from './custodian-harness.ts';
import { materializeNow, silentLogger } from './pipeline-harness.ts';

export interface DemoWorldHarness extends ApiHarness {
  custodians: CustodianHarness;
  /** Whom the demo users are related to (pipeline/generate/demo-users.ts). */
  plan: DemoPlan;
  /** Seconds spent generating, ingesting and materializing the world. */
  loadSeconds: number;
}

export function useDemoWorld(): DemoWorldHarness {
  const custodians = useCustodians({ consecutivePorts: true });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'soulgraph-demo-world-'));
  const harness = useApi({ TAG_NETWORK_PUBLIC_KEY: custodians.publicKey, DATA_DIR: dataDir }) as DemoWorldHarness;
  harness.custodians = custodians;
  beforeAll(async () => {
    const started = performance.now();
    const { config } = harness;
    harness.plan = demoPlan(createWorld(config.DEMO_SEED, config.DEMO_PROFILES, 1));
    const workers = await startWorkers(config, silentLogger, { maintenance: false });
    try {
      await ingestDemoWorld(config, () => {}, 50);
    } finally {
      await workers.close();
    }
    const run = await materializeNow(harness);
    if (run.state !== 'done') throw new Error(`materialize ${run.state}: ${run.error}`);
    harness.loadSeconds = (performance.now() - started) / 1000;
  }, 600_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  return harness;
}
