import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../api/common/error-codes.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = [...doc.matchAll(/^\| `(\d+)` \| (\d{3}) \| `(\w+)` \| ([^|]+) \|/gm)].map((m) => ({
  code: m[1],
  status: Number(m[2]),
  name: m[3],
  desc: m[4]!.trim(),
}));

describe('the error code table', () => {
  it('is documented in docs/errors.md exactly as in the code', () => {
    const inCode = Object.entries(errorCodes).map(([name, e]) => ({ code: e.code, status: e.status, name, desc: e.desc }));
    expect(documented).toEqual(inCode);
  });

  it('keeps the codes of the original service', () => {
    expect(errorCodes.success.code).toBe('0');
    expect(errorCodes.tokenExpired.code).toBe('10100');
    expect(errorCodes.tokenInvalid.code).toBe('10101');
    expect(errorCodes.tokenIssuerInvalid.code).toBe('10102');
    expect(errorCodes.rateLimited.code).toBe('10110');
    expect(errorCodes.fieldNotSupported.code).toBe('11601');
    expect(errorCodes.userNotFound.code).toBe('11602');
  });

  it('gives every code once', () => {
    const codes = Object.values(errorCodes).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
