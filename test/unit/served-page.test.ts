/**
 * The API checks every served page by hand (api/served-lists.ts, decodePage) rather than with
 * zod, for speed; the zod schema stays the contract. They must agree on every document:
 * real pages, and pages with one value changed into something else.
 */
import { describe, expect, it } from 'vitest';
import { decodePage, servedPageSchema } from '../../api/served-lists.ts';
import { Rng } from '../../pipeline/generate/random.ts';

function validPage(rng: Rng): Record<string, unknown> {
  const entries = Array.from({ length: rng.below(22) }, (_, i) => [`p_${i}`, 1 + rng.below(4), rng.below(3) === 0 ? 137 : 0, rng.below(2) ? 'CryptoPunks' : '']);
  const ids = entries.map((e) => e[0]);
  return {
    m: rng.below(2),
    n: entries.length + rng.below(100),
    e: entries,
    ids,
    p: ids.map((_, i) => (rng.below(5) === 0 ? null : [1_700_000_000 + i, rng.below(4) === 0 ? null : `Name ${i}`, rng.below(4) === 0 ? null : 'https://a.example/x.png'])),
    f: entries.map(() => (rng.below(2) ? null : String(3_400_000_001 + rng.below(2)))),
  };
}

/** Values of every JSON type, and the near misses of each field's rules. */
const REPLACEMENTS: unknown[] = [null, 0, 1, 2, -1, 5, 1.5, 1e300, '', '1', 'x', true, false, [], {}, ['p_1', 1, 0, ''], [1, 'a', 'b'], [1, null, null, null], { m: 0 }];

/** The document with one value, at a random depth, replaced; or a key removed. */
function mutated(rng: Rng, doc: unknown): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  let holder: Record<string | number, unknown> | unknown[] = copy;
  for (;;) {
    const keys = Array.isArray(holder) ? holder.map((_, i) => i) : Object.keys(holder);
    if (keys.length === 0) return copy;
    const key = keys[rng.below(keys.length)]!;
    const child = (holder as Record<string | number, unknown>)[key];
    if (typeof child === 'object' && child !== null && rng.below(3) > 0) {
      holder = child as Record<string, unknown>;
      continue;
    }
    if (!Array.isArray(holder) && rng.below(8) === 0) delete (holder as Record<string, unknown>)[key];
    else (holder as Record<string | number, unknown>)[key] = REPLACEMENTS[rng.below(REPLACEMENTS.length)];
    return copy;
  }
}

const verdictOfDecode = (doc: unknown) => {
  try {
    decodePage(JSON.stringify(doc));
    return true;
  } catch {
    return false;
  }
};

describe('decodePage', () => {
  it('accepts real pages, giving back what the schema gives', () => {
    const rng = new Rng(1, 2, 3, 4);
    for (let i = 0; i < 500; i++) {
      const doc = validPage(rng);
      expect(decodePage(JSON.stringify(doc))).toEqual(servedPageSchema.parse(doc));
    }
  });

  it('agrees with the schema on 10,000 pages with one value changed', () => {
    const rng = new Rng(5, 6, 7, 8);
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      const doc = mutated(rng, validPage(rng));
      const expected = servedPageSchema.safeParse(doc).success;
      expect(verdictOfDecode(doc), JSON.stringify(doc)).toBe(expected);
      if (!expected) refused++;
    }
    // The mutations must exercise the refusals, not only harmless changes.
    expect(refused).toBeGreaterThan(2_500);
  });

  it('refuses what is not a page object, naming the field', () => {
    expect(() => decodePage('[]')).toThrow(/malformed page \(not an object\)/);
    expect(() => decodePage('null')).toThrow(/not an object/);
    expect(() => decodePage('{"m":0,"n":1,"e":[["p_1",5,0,""]],"ids":[],"p":[],"f":[]}')).toThrow(/malformed page \(e\)/);
    expect(() => decodePage('not json')).toThrow(SyntaxError);
  });
});
