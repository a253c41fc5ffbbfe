/**
 * GET /api/v1/tag: a user's tags, encrypted so that only that user's authorization can
 * decrypt them (docs/tags.md). Exactly one of address, socialUsername, gamePlatformId,
 * plus `message` (an "Access to User Tag." Sign-In with Ethereum message) and `sig`.
 *
 * In this order: the parameters; the message and signature in full; that the signer is
 * the user asked about (403 otherwise, whoever else it is); then the ciphertext, from the
 * cache or computed off the event loop.
 */
import type { Router } from 'express';
import type { Guards } from '../common/endpoints.ts';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../shared/api-keys.ts';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import type { Config } from '../../shared/config.ts';
import { ApiError, envelopeSchema, sendSuccess } from '../common/envelope.ts';
import { ExpiringMemo } from '../common/expiring-memo.ts';
import { profileWith } from '../common/profile-lookup.ts';
import { cachedNewestSnapshot } from '../recommend/recommendations.ts';
import { parseQuery } from '../common/request-validation.ts';
import type { TagService } from './tag-service.ts';
import { tagsOf } from './tags.ts';
import { oneIdentifier, userIdentifierQuery, type UserIdentifier } from '../sbt/sbt-list.ts';

export const tagQuery = userIdentifierQuery.extend({
  sig: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, 'must be a 0x-prefixed hex signature')
    .max(20_000)
    .meta({ description: 'The signature of `message` by the user (EOA, or EIP-1271/6492 smart wallet)', example: '0x5f1c...1b' }),
  message: z
    .string()
    .min(1)
    .max(4096)
    .meta({
      description:
        'The signed EIP-4361 message, URL-encoded. Statement exactly "Access to User Tag."; domain one of the ApiKey\'s domains; expirationTime required, at most TAG_MESSAGE_MAX_VALIDITY_SECONDS (24 h) after issuedAt',
    }),
});

export const encryptedData = z
  .object({
    encryptedString: z.string().meta({ description: 'base64(IV || AES-256-GCM ciphertext || tag) of the JSON array of tags' }),
    encryptedSymmetricKey: z.string().meta({
      description: "The AES key, encrypted in Lit Protocol's BLS12-381 IBE format to the custody network, for the identity of the condition \"user address = signer\" and the hash of (message domain, encryptedString)",
    }),
  })
  .meta({ id: 'EncryptedData' });

export const tagResponse = envelopeSchema(encryptedData);

export interface TagRouteDeps {
  config: Config;
  ch: ClickHouse;
  tags: TagService;
}

interface ProfileOfUser {
  profileId: string;
  addresses: string[];
}

const LOOKUP_ENTRIES = 50_000;

/** Registers on `router` (see recommendRoute). */
export function tagRoute(deps: TagRouteDeps, before: Guards, router: Router): Router {
  const newestSnapshot = cachedNewestSnapshot(deps.ch, deps.config.SNAPSHOT_CACHE_SECONDS * 1000);
  const lookups = new ExpiringMemo<ProfileOfUser | null>(LOOKUP_ENTRIES);
  const lookupMs = deps.config.TAG_LOOKUP_CACHE_SECONDS * 1000;

  async function profileOf(user: UserIdentifier): Promise<ProfileOfUser | null> {
    const key = `${user.kind}:${user.value}`;
    const remembered = lookups.get(key);
    if (remembered !== undefined) return remembered;
    const profile = (await profileWith(deps.ch, user.kind, user.value)) ?? null;
    lookups.set(key, profile && { ...profile, addresses: profile.addresses.map((a) => a.toLowerCase()) }, Date.now() + lookupMs);
    return profile;
  }

  return router.get('/api/v1/tag', ...before('tag'), async (req, res) => {
    const query = parseQuery(tagQuery, req.query);
    const user = oneIdentifier(query);
    const apiKey = res.locals.apiKey as ApiKeyRecord;
    const signed = await deps.tags.access.verify(query.message, query.sig, apiKey.domains);
    if (user.kind === 'address' && user.value.toLowerCase() !== signed.address) throw new ApiError('signerNotUser');
    const profile = await profileOf(user);
    if (!profile) throw new ApiError('userNotFound');
    if (!profile.addresses.some((a) => a.toLowerCase() === signed.address)) throw new ApiError('signerNotUser');

    const ciphertexts = deps.tags.ciphertexts;
    if (!ciphertexts) throw new ApiError('serviceUnavailable', 'service unavailable: tag encryption is not configured (TAG_NETWORK_PUBLIC_KEY)');
    const snapshotId = (await newestSnapshot()) ?? 0;
    const encrypted = await ciphertexts.get({ snapshotId, profileId: profile.profileId, signer: signed.address, chainId: signed.chainId, domain: signed.domain }, () =>
      snapshotId === 0 ? Promise.resolve([]) : tagsOf(deps.ch, snapshotId, profile.profileId),
    );
    sendSuccess(res, encrypted);
  });
}
