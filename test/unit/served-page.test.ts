/**
 * The serving script's answer (api/served-page.lua): a status line, then the list's JSON,
 * which the API passes on without parsing. What it does check is the status line and that
 * the rest is an array.
 */
import { describe, expect, it } from 'vitest';
import { servedPage } from '../../api/served-lists.ts';


describe('servedPage', () => {
  it('reads the status line and keeps the list as it came', () => {
    const page = servedPage('1 50 21\n[{"profileId":"p_1"}]', 20);
    expect(page).toMatchObject({ size: 20, hasNext: true, stored: 50, more: true });
    expect(page.list).toBe('[{"profileId":"p_1"}]');
  });

  it('says there is no next page when the script read no more than the limit', () => {
    expect(servedPage('0 3 3\n[]', 20)).toMatchObject({ size: 3, hasNext: false, stored: 3, more: false });
    expect(servedPage('0 0 0\n[]', 1)).toMatchObject({ size: 0, hasNext: false, stored: 0, more: false });
  });

  it.each(['', '[]', '0 3\n[]', '2 3 3\n[]', '0 3 3 \n[]', '0 -1 3\n[]', '0 3 x\n[]', '0 3 3\n', '0 3 3\n{}', '0 3 3\n[', 'garbage\n[]'])(
    'throws on a malformed answer %j',
    (text) => {
      expect(() => servedPage(text, 20)).toThrow(/malformed page/);
    },
  );
});
