/**
 * A user's tags as the tag endpoint returns them: `encryptedString` (the JSON array,
 * AES-256-GCM under a fresh key) and `encryptedSymmetricKey` (that key, Lit-format IBE to
 * the custody network's public key, for the identity "the signer is <address>" + the
 * hash of (domain, encryptedString)). Decryption needs the network's signature on that
 * identity, which the custodians (or Lit's nodes) give only to a valid SIWE authorization
 * by <address> (for <domain>, with the custodians).
 */
import { dataToEncryptHash, encryptedDataHash, identityOf, userAddressConditions, type UserAddressCondition } from './access-conditions.ts';
import { decryptWithSignature, encryptToIdentity, type G1Point, type G2Point } from './lit-ibe.ts';
import { decryptWithSymmetricKey, encryptWithSymmetricKey, randomSymmetricKey } from './symmetric-encryption.ts';

export interface EncryptedTags {
  encryptedString: string;
  encryptedSymmetricKey: string;
}

/** Who may decrypt: the signer, on the chain and for the domain of their authorization. */
export interface TagAudience {
  signer: string;
  chainId: number;
  domain: string;
}

/** What a decrypting client (or Lit's `decrypt`) needs besides the two strings. */
export interface TagDecryptionParams {
  accessControlConditions: UserAddressCondition[];
  /** sha256 of the AES ciphertext, what the custodians are sent. */
  encryptedDataHash: string;
  /** Lit's dataToEncryptHash: binds the domain and the AES ciphertext. */
  dataToEncryptHash: string;
  chain: string;
  identity: Uint8Array;
}

export async function encryptTags(tags: readonly string[], audience: TagAudience, networkKey: G1Point): Promise<EncryptedTags> {
  const key = randomSymmetricKey();
  try {
    const encryptedString = await encryptWithSymmetricKey(key, new TextEncoder().encode(JSON.stringify(tags)));
    const { identity } = tagDecryptionParams(encryptedString, audience);
    return { encryptedString, encryptedSymmetricKey: encryptToIdentity(networkKey, key, identity) };
  } finally {
    // Best effort: the key has no reason to outlive this call.
    key.fill(0);
  }
}

export function tagDecryptionParams(encryptedString: string, audience: TagAudience): TagDecryptionParams {
  const accessControlConditions = userAddressConditions(audience.signer, audience.chainId);
  const dataHash = encryptedDataHash(encryptedString);
  const boundHash = dataToEncryptHash(audience.domain, dataHash);
  return {
    accessControlConditions,
    encryptedDataHash: dataHash,
    dataToEncryptHash: boundHash,
    chain: accessControlConditions[0].chain,
    identity: identityOf(accessControlConditions, boundHash),
  };
}

/** The tags, given the network's combined signature on the identity. */
export async function decryptTags(encrypted: EncryptedTags, networkSignature: G2Point): Promise<string[]> {
  const key = decryptWithSignature(encrypted.encryptedSymmetricKey, networkSignature);
  return decryptTagsWithKey(encrypted.encryptedString, key);
}

/** The tags, given the symmetric key (what Lit's `decrypt` returns). */
export async function decryptTagsWithKey(encryptedString: string, key: Uint8Array): Promise<string[]> {
  const json: unknown = JSON.parse(new TextDecoder().decode(await decryptWithSymmetricKey(key, encryptedString)));
  if (!Array.isArray(json) || !json.every((t) => typeof t === 'string')) throw new TypeError('decrypted tags are not an array of strings');
  return json;
}
