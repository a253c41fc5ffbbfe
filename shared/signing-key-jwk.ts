/**
 * The form of the API's signing keys: ES256 private JWKs with a `kid`, as held (in a JSON
 * array) by API_SIGNING_KEYS. Shared so that the CLI can mint one (`soulgraph keys
 * generate`) without depending on the API.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { z } from 'zod';

export const SIGNING_ALGORITHM = 'ES256';

export const privateEcJwk = z.object({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  kid: z.string().min(1),
  x: z.string().min(1),
  y: z.string().min(1),
  d: z.string().min(1),
  alg: z.literal(SIGNING_ALGORITHM).optional(),
  use: z.literal('sig').optional(),
});
export type PrivateEcJwk = z.infer<typeof privateEcJwk>;

/** A new private ES256 JWK with a random kid: what `API_SIGNING_KEYS` holds (in an array). */
export async function generateSigningKeyJwk(kidPrefix = 'key'): Promise<PrivateEcJwk> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = `${kidPrefix}-${randomBytes(8).toString('hex')}`;
  return privateEcJwk.parse({ ...jwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' });
}

