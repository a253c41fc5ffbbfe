/**
 * How a run fits the ranking model (pipeline/materialize/fit/): which follows it hides, the
 * conditional logit's weights, the coordinate ascent's, and the defaults where data is short.
 */
import { describe, expect, it } from 'vitest';
import { ascendToHits, hitsWithin } from '../../pipeline/materialize/fit/coordinate-ascent.ts';
import { fitConditionalLogit, type ChoiceGroup } from '../../pipeline/materialize/fit/conditional-logit.ts';
import { heldOutFollows } from '../../pipeline/materialize/fit/held-out-follows.ts';
import { fitModel } from '../../pipeline/materialize/fit/model-fit.ts';
import { FollowGraph } from '../../pipeline/materialize/graph/follow-graph.ts';
import { NO_SIGNALS } from '../../pipeline/materialize/graph/signal-graphs.ts';
import { DEFAULT_MODEL } from '../../pipeline/materialize/rank/ranking-model.ts';
import { mix32 } from '../../pipeline/generate/random.ts';

function graphOf(edges: [number, number, number][], nodes: number): FollowGraph {
  return FollowGraph.of(nodes, Uint32Array.from(edges, (e) => e[0]), Uint32Array.from(edges, (e) => e[1]), Uint32Array.from(edges, (e) => e[2]));
}

describe('the held-out follows', () => {
  // A clique of five, each follow at its own time.
  const time = (a: number, b: number) => 1_000 + ((a * 7 + b * 13) % 23);
  const edges: [number, number, number][] = [];
  for (let a = 0; a < 5; a++) for (let b = 0; b < 5; b++) if (a !== b) edges.push([a, b, time(a, b)]);
  const graph = graphOf(edges, 5);

  it("hides each sampled profile's newest follow (a tenth, at least one), and keeps the rest of the graph", () => {
    const held = heldOutFollows(graph, 10);
    for (let a = 0; a < 5; a++) {
      const followees = [0, 1, 2, 3, 4].filter((b) => b !== a);
      const newest = followees.reduce((x, y) => (time(a, y) > time(a, x) ? y : x));
      expect(held.heldOut.get(a), `profile ${a}`).toEqual([newest]);
      expect([...held.graph.following(a)]).not.toContain(newest);
    }
    expect(held.count).toBe(5);
  });

  it('hides a return made after the hidden follow with it (it did not exist yet), and keeps an older one', () => {
    // 0 followed 1 at 10 and 2 at 20; 1 followed 0 back at 30, 2 had followed 0 at 5.
    const g = graphOf([[0, 1, 10], [0, 2, 20], [1, 0, 30], [2, 0, 5], [1, 2, 1], [2, 1, 2]], 3);
    const held = heldOutFollows(g, 1);
    // Profile 0 is sampled first? Whichever is, its newest follow goes, and a later return with it.
    for (const [p, hidden] of held.heldOut) {
      for (const h of hidden) {
        const back = [...g.following(h)].includes(p);
        const backTime = back ? g.outTimes[g.out.offsets[h]! + [...g.following(h)].indexOf(p)]! : -1;
        const own = g.outTimes[g.out.offsets[p]! + [...g.following(p)].indexOf(h)]!;
        expect([...held.graph.following(h)].includes(p), `${h} follows ${p} back`).toBe(back && backTime <= own);
      }
    }
  });

});

/** Groups where each profile picks, among candidates with features (x0, x1), by exp(2 x0 - x1) (a known choice model). */
function choicesBy(weights: [number, number], groups: number, seed: number): ChoiceGroup[] {
  const out: ChoiceGroup[] = [];
  for (let g = 0; g < groups; g++) {
    const n = 20;
    const rows = new Float64Array(n * 2);
    const p: number[] = [];
    for (let j = 0; j < n; j++) {
      rows[j * 2] = (mix32(seed ^ (g * 131 + j * 7)) / 2 ** 32) * 2;
      rows[j * 2 + 1] = (mix32(seed ^ (g * 131 + j * 7 + 1)) / 2 ** 32) * 2;
      p.push(Math.exp(weights[0] * rows[j * 2]! + weights[1] * rows[j * 2 + 1]!));
    }
    const total = p.reduce((a, b) => a + b, 0);
    let u = (mix32(seed ^ (g * 977)) / 2 ** 32) * total;
    let chosen = 0;
    while (u > p[chosen]!) u -= p[chosen++]!;
    // The chosen row first, as the fit lays out a group.
    const ordered = new Float64Array(n * 2);
    ordered.set(rows.subarray(chosen * 2, chosen * 2 + 2), 0);
    let at = 2;
    for (let j = 0; j < n; j++) if (j !== chosen) ordered.set(rows.subarray(j * 2, j * 2 + 2), (at += 2) - 2);
    out.push({ rows: ordered, counts: new Float64Array(n).fill(1), chosen: 1 });
  }
  return out;
}

describe('the conditional logit', () => {
  it('recovers the weights that made the choices', () => {
    const fit = fitConditionalLogit(choicesBy([2, -1], 4_000, 7), [0, 0], 0.01);
    expect(fit.weights[0]).toBeCloseTo(2, 0);
    expect(fit.weights[1]).toBeCloseTo(-1, 0);
  });

  it('keeps a weight the data cannot tell apart at its prior', () => {
    // The second feature is 0 everywhere: nothing to learn about it.
    const groups = choicesBy([2, 0], 500, 3).map((g) => {
      const rows = Float64Array.from(g.rows, (v, i) => (i % 2 === 1 ? 0 : v));
      return { ...g, rows };
    });
    expect(fitConditionalLogit(groups, [0, 0.7], 5).weights[1]).toBeCloseTo(0.7, 12);
  });
});

describe('the coordinate ascent', () => {
  it('moves a weight that puts more chosen rows first, and none that does not beyond chance', () => {
    const groups = choicesBy([3, 0], 2_000, 11);
    // Start from weights that rank by the wrong feature.
    const start = [0, 1];
    const before = hitsWithin(groups, start, 1);
    const { weights } = ascendToHits(groups, start);
    expect(hitsWithin(groups, weights, 1)).toBeGreaterThan(before);
    expect(weights[0]).toBeGreaterThan(weights[1]!);
  });
});

describe('the fit of a run', () => {
  it('keeps the default weights where it finds fewer than MIN_FOUND hidden follows', () => {
    const graph = graphOf([[0, 1, 1], [1, 0, 2], [0, 2, 3], [2, 0, 4]], 3);
    const fit = fitModel({ follows: graph, signals: NO_SIGNALS(3) }, { topK: 10, pathCap: 1000, walkBudget: 100, perCollection: 10 }, 100);
    expect(fit.model).toEqual(DEFAULT_MODEL);
  });

  it('learns to put followers first where follows are returned, and not where they are not', () => {
    // 300 profiles in rings of 10: i follows i+1 and i+2, and (in the returning world) is followed back.
    const rings = (returned: boolean) => {
      const edges: [number, number, number][] = [];
      for (let i = 0; i < 300; i++) {
        const ring = Math.floor(i / 10) * 10;
        for (const step of [1, 2, 3]) {
          const j = ring + ((i - ring + step) % 10);
          edges.push([i, j, i * 10 + step]);
          if (returned) edges.push([j, i, i * 10 + step + 5]);
        }
      }
      return graphOf(edges.filter((e, k) => edges.findIndex((f) => f[0] === e[0] && f[1] === e[1]) === k), 300);
    };
    const settings = { topK: 50, pathCap: 10_000, walkBudget: 200, perCollection: 10 };
    const weightOf = (graph: FollowGraph) => fitModel({ follows: graph, signals: NO_SIGNALS(300) }, settings, 1_000);
    const returning = weightOf(rings(true));
    const oneWay = weightOf(rings(false));
    expect([returning.model.source, oneWay.model.source]).toEqual(['fitted', 'fitted']);
    // follows_you is the first feature: worth more where following back is the rule.
    expect(returning.model.weights[0]).toBeGreaterThan(oneWay.model.weights[0]!);
    expect(oneWay.model.weights[0]).toBeLessThan(DEFAULT_MODEL.weights[0]!);
    for (const fit of [returning, oneWay]) expect(fit.foundByFitted).toBeGreaterThanOrEqual(fit.foundByDefault);
  });
});
