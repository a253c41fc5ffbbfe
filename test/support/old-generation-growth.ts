/**
 * A child process for test/unit/heap-settings.test.ts, run with `--trace-gc`: holds ~40 MB
 * live, then promotes short-lived garbage (objects kept in a ring long enough to outlive
 * two scavenges) until several mark-compacts have run. With `apply` as its argument it
 * first applies the API's heap settings, as startApi does.
 */
import { applyApiHeapSettings } from '../../api/heap-settings.ts';

if (process.argv[2] === 'apply') applyApiHeapSettings();
const live = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `x${i}`, a: [i, i] }));
const ring: unknown[] = new Array(100_000);
let next = 0;
for (let step = 0; step < 1_500; step++) {
  for (let k = 0; k < 2_000; k++) ring[next++ % ring.length] = { k, t: `y${k}`, b: [k] };
}
process.stdout.write(`done ${live.length}\n`);
