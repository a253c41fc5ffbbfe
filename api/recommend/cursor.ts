/**
 * Recommendation cursors: opaque to clients, signed (HMAC-SHA256) so that a tampered one
 * is refused, and pinned to the snapshot and the profile they were issued for, so that a
 * nightly swap in the middle of paging neither repeats nor skips anyone.
 *
 *   <base64url(JSON payload)>.<base64url(HMAC of the first part)>
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../shared/config.ts';
import { ApiError } from '../common/envelope.ts';

const payloadSchema = z.strictObject({
  v: z.literal(1),
  /** snapshot id */
  s: z.number().int().min(0),
  /** profile the page belongs to */
  p: z.string().min(1),
  /** rank of the last row already returned */
  r: z.number().int().min(0),
});

export type CursorPosition = { snapshotId: number; profileId: string; afterRank: number };

export interface CursorCodec {
  encode(position: CursorPosition): string;
  /** The position, or an ApiError (cursorInvalid) for anything not issued by us for this profile. */
  decode(cursor: string, profileId: string): CursorPosition;
}

export function createCursorCodec(secret: Buffer): CursorCodec {
  // Imported once: a raw Buffer would be imported again on every page.
  const key = createSecretKey(secret);
  const sign = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    encode({ snapshotId, profileId, afterRank }) {
      const body = Buffer.from(JSON.stringify({ v: 1, s: snapshotId, p: profileId, r: afterRank })).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    decode(cursor, profileId) {
      const [body, mac, extra] = cursor.split('.');
      if (!body || !mac || extra !== undefined) throw new ApiError('cursorInvalid');
      const expected = sign(body);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('cursorInvalid');
      const payload = payloadSchema.safeParse(parseJson(Buffer.from(body, 'base64url').toString('utf8')));
      if (!payload.success) throw new ApiError('cursorInvalid');
      if (payload.data.p !== profileId) throw new ApiError('cursorInvalid', 'cursor invalid: it was issued to another user');
      return { snapshotId: payload.data.s, profileId: payload.data.p, afterRank: payload.data.r };
    },
  };
}

/** CURSOR_SECRET, or outside production a per-process secret (cursors then die with the process). */
export function cursorSecret(config: Config): Buffer {
  // Its length is checked with the rest of the settings (shared/config.ts).
  if (config.CURSOR_SECRET !== '') return Buffer.from(config.CURSOR_SECRET, 'utf8');
  if (config.NODE_ENV === 'production') throw new Error('CURSOR_SECRET is required in production');
  return randomBytes(32);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
