/** The docs test's checker itself (test/support/doc-runner.ts): it must catch drift, and only drift. */
import { describe, expect, it } from 'vitest';
import { docBlocks, examples, jsonDifferences, jsonValues, outputDifferences, textDifferences } from '../support/doc-runner.ts';

describe('the docs checker', () => {
  it('pairs each runnable block with the outputs after it, skipping what is marked', () => {
    const doc = [
      '```bash', 'curl -s "$API/healthz"', '```',
      'text', '```json', '{"a":1}', '```',
      '<!-- docs-test: not output -->', '```json', '{"b":2}', '```',
      '<!-- docs-test: not run (starts servers) -->', '```sh', 'npm start', '```',
      '```text', 'not an output of the curl', '```',
      '```ts', 'console.log(1)', '```',
      '<!-- docs-test: stderr -->', '```text', 'on stderr', '```',
    ].join('\n');
    const found = examples(docBlocks(doc));
    expect(found.map((e) => [e.block.lang, e.outputs.map((o) => o.body)])).toEqual([
      ['bash', ['{"a":1}']],
      ['ts', ['on stderr']],
    ]);
    expect(found[1]!.outputs[0]!.marker).toBe('stderr');
  });

  it('reads JSON values printed back to back', () => {
    expect(jsonValues('{"a":"}{"}[1,2]\n{"b":{"c":[]}}200\n')).toEqual([{ a: '}{' }, [1, 2], { b: { c: [] } }]);
  });

  it('finds a changed id, code or shape, and lets run-to-run values differ', () => {
    const doc = { code: '0', data: { nonce: 'aa', token: 'eyJhbGci.eyJzdWIi…', profileId: 'p_demo_ada', at: '2026-11-22T21:40:20Z' } };
    expect(jsonDifferences(doc, { code: '0', data: { nonce: 'bb', token: 'eyJx.eyJy.sig', profileId: 'p_demo_ada', at: '2027-01-01T00:00:00Z' } })).toEqual([]);
    expect(jsonDifferences(doc, { code: '0', data: { ...doc.data, profileId: 'p_demo_alan' } })).toHaveLength(1);
    expect(jsonDifferences(doc, { code: '10200', data: doc.data })).toHaveLength(1);
    expect(jsonDifferences(doc, { code: '0', data: { ...doc.data, extra: 1 } })).toEqual(['$.data.extra: not documented']);
  });

  it('compares recommendation lists as sets, and the last cursor exactly', () => {
    const page = (list: string[], cursor: string) => ({ data: { cursor, list: list.map((p) => ({ profileId: p })) } });
    expect(jsonDifferences(page(['a', 'b'], ''), page(['b', 'a'], ''))).toEqual([]);
    expect(jsonDifferences(page(['a', 'b'], ''), page(['a', 'c'], ''))).not.toEqual([]);
    expect(jsonDifferences(page(['a'], ''), page(['a'], 'c2lnbmVk'))).not.toEqual([]);
  });

  it('wants the documented lines in order, or in any order when the doc says so', () => {
    expect(textDifferences('a\nc', 'a\nb\nc\n')).toEqual([]);
    expect(textDifferences('c\na', 'a\nb\nc\n')).not.toEqual([]);
    expect(textDifferences('c\na', 'a\nb\nc\n', true)).toEqual([]);
    expect(textDifferences('a\na', 'a\n', true)).not.toEqual([]);
    expect(textDifferences('key id  name\n6f90931fff44  acme', 'key id name\nb58a18bc58bc    acme\n')).toEqual([]);
  });

  it('refuses a printed line the doc leaves out when the doc says it shows every line', () => {
    expect(textDifferences('a\nc', 'a\nb\nc\n', false, true)).toContain('printed, not documented: b');
    expect(textDifferences('c\nb\na', 'a\nb\nc\n', true, true)).toEqual([]);
    expect(textDifferences('c\na', 'a\nb\nc\n', true, true)).toContain('printed, not documented: b');
  });

  it('says when one printed value differs from the one documented for several', () => {
    const outputs = docBlocks('```bash\nx\n```\n```json\n{"code":"0"}\n```');
    expect(outputDifferences(outputs.slice(1), { stdout: '{"code":"0"}{"code":"0"}', stderr: '' })).toEqual([]);
    expect(outputDifferences(outputs.slice(1), { stdout: '{"code":"0"}{"code":"11602"}', stderr: '' })).not.toEqual([]);
  });
});
