/**
 * The queue dashboard in a real browser (Debian's headless Chromium), opened the way
 * operators bookmark it: with the admin credential in the URL. Bull Board's page must get
 * past "Loading" and show the queues with its own labels, not bare translation keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAIN_QUEUE, allQueueNames } from '../../shared/queues.ts';
import { DASHBOARD_PATH, startAdminServer, type AdminServer } from '../../pipeline/admin/admin-server.ts';
import { launchHeadlessChromium, type HeadlessChromium } from '../support/headless-chromium.ts';
import { silentLogger } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const PASSWORD = 'correct horse battery staple';
const env = useTestEnvironment({ ADMIN_USER: 'ops', ADMIN_PASSWORD: PASSWORD });
// Under i18next's retries (350 ms doubling five times, 10.85 s) the broken page cannot make
// it; a working one renders in well under a second.
const RENDER_WITHIN_MS = 10_000;
let admin: AdminServer;
let chromium: HeadlessChromium | undefined;

beforeAll(async () => {
  admin = await startAdminServer(env.config, silentLogger, 0);
});
afterAll(async () => {
  await chromium?.close();
  await admin?.close();
});

describe('the queue dashboard in a browser', () => {
  it('renders the queues when the URL carries user:pass@', async () => {
    // Launched here, not in a hook: without Chromium this test fails (saying why), never shows as skipped.
    chromium = await launchHeadlessChromium();
    const page = await chromium.open(`http://ops:${encodeURIComponent(PASSWORD)}@127.0.0.1:${admin.port}${DASHBOARD_PATH}`);
    const queues = allQueueNames().filter((name) => name !== CHAIN_QUEUE);
    const deadline = Date.now() + RENDER_WITHIN_MS;
    let shown = '';
    while (Date.now() < deadline) {
      // A reload in progress has no document to ask yet.
      shown = String(await page.evaluate('document.body?.innerText ?? ""').catch(() => ''));
      if (queues.every((name) => shown.includes(name))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = `the page shows: ${JSON.stringify(shown.slice(0, 200))}\nthe browser reported:\n${page.problems().join('\n')}`;
    for (const name of queues) expect(shown, seen).toContain(name);
    expect(shown, `translated labels, not keys; ${seen}`).not.toMatch(/\b[A-Z]+(?:\.[A-Z_]+)+\b/);
    expect(await page.evaluate('document.URL'), 'the page reloaded without the credential in its URL').toBe(`http://127.0.0.1:${admin.port}${DASHBOARD_PATH}`);
  });
});
