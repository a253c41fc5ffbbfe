/**
 * Who turns an authorization into the symmetric key of a tag ciphertext:
 * - the local custody network: ask every custodian for its share, combine t of them,
 *   check the result against the network key, decrypt locally;
 * - Lit Protocol (production): a connected LitNodeClient's `decrypt`.
 */
import { DecryptionError, decryptWithSignature, publicKeyFromHex, type G2Point } from '../shared/tag-crypto/lit-ibe.ts';
import {
  combineSignatureShares,
  fromLitShare,
  verifyIdentitySignature,
  type LitSignatureShare,
  type SignatureShare,
} from '../shared/tag-crypto/threshold-signatures.ts';
import type { UserAddressCondition } from '../shared/tag-crypto/access-conditions.ts';
import { TagDecryptionError } from './api-error.ts';
import type { authSigOf } from './tag-access-message.ts';

export type AuthSig = ReturnType<typeof authSigOf>;

export interface KeyDecryptionRequest {
  /** The `encryptedSymmetricKey` of the API's answer. */
  ciphertext: string;
  accessControlConditions: UserAddressCondition[];
  /** sha256 of the AES ciphertext: what the custodians are sent (they bind the domain themselves). */
  encryptedDataHash: string;
  /** Lit's dataToEncryptHash: the domain and the AES ciphertext, bound. */
  dataToEncryptHash: string;
  chain: string;
  identity: Uint8Array;
  authSig: AuthSig;
}

export interface KeyDecryptor {
  /** The 32-byte symmetric key. */
  decryptKey(request: KeyDecryptionRequest): Promise<Uint8Array>;
}

export interface CustodianNetwork {
  /** Base URLs of the custodians, e.g. ["http://127.0.0.1:7101", ...]. */
  custodians: string[];
  /** Shares needed (t). */
  threshold: number;
  /** The network public key (96 hex characters), from network.json: shares are checked against it. */
  publicKey: string;
  fetch?: typeof fetch;
  /** Per-custodian request timeout; default 10 s. */
  timeoutMs?: number;
}

export function custodianDecryptor(network: CustodianNetwork): KeyDecryptor {
  const networkKey = publicKeyFromHex(network.publicKey);
  const doFetch = network.fetch ?? globalThis.fetch;
  return {
    async decryptKey(request) {
      const body = JSON.stringify({
        accessControlConditions: request.accessControlConditions,
        encryptedDataHash: request.encryptedDataHash,
        authSig: request.authSig,
      });
      const answers = await Promise.all(network.custodians.map((url) => askCustodian(doFetch, url, body, network.timeoutMs ?? 10_000)));
      const shares = answers.filter((a): a is SignatureShare => !(a instanceof Error));
      const refusals = answers.filter((a): a is Error => a instanceof Error).map((e) => e.message);
      const signature = combinedSignature(shares, network.threshold, networkKey, request.identity);
      if (!signature) {
        throw new TagDecryptionError(
          `fewer than ${network.threshold} custodians gave a valid share (${shares.length} answered${refusals.length ? `; refused: ${refusals.join('; ')}` : ''})`,
        );
      }
      return keyOpenedBy(request.ciphertext, signature);
    },
  };
}

/**
 * The symmetric key. The custodians signed the identity the authorization names, so a
 * key that does not open the ciphertext was made for another audience, or altered.
 */
function keyOpenedBy(ciphertext: string, signature: G2Point): Uint8Array {
  try {
    return decryptWithSignature(ciphertext, signature);
  } catch (error) {
    if (!(error instanceof DecryptionError)) throw error;
    throw new TagDecryptionError(
      `${error.message} (were the tags fetched with an authorization for another domain, chain or address than this one?)`,
    );
  }
}

async function askCustodian(doFetch: typeof fetch, url: string, body: string, timeoutMs: number): Promise<SignatureShare | Error> {
  try {
    const response = await doFetch(`${url.replace(/\/$/, '')}/v1/decryption-share`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const json = (await response.json()) as { signatureShare?: LitSignatureShare; error?: string; message?: string };
    if (!response.ok || !json.signatureShare) return new Error(`${url}: ${json.error ?? response.status} ${json.message ?? ''}`.trim());
    return fromLitShare(json.signatureShare);
  } catch (error) {
    return new Error(`${url}: ${(error as Error).message}`);
  }
}

/**
 * The first t shares normally combine into a valid signature; if not (a faulty or lying
 * custodian), other sets of t are tried, a bounded number of them.
 */
function combinedSignature(shares: SignatureShare[], threshold: number, networkKey: ReturnType<typeof publicKeyFromHex>, identity: Uint8Array) {
  let tried = 0;
  for (const subset of subsetsOf(shares, threshold)) {
    if (++tried > MAX_COMBINATIONS) break;
    const candidate = combineSignatureShares(subset);
    if (verifyIdentitySignature(networkKey, identity, candidate)) return candidate;
  }
  return undefined;
}

const MAX_COMBINATIONS = 32;

function* subsetsOf<T>(items: T[], size: number, start = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let i = start; i <= items.length - size; i++) {
    for (const rest of subsetsOf(items, size - 1, i + 1)) yield [items[i]!, ...rest];
  }
}

/** The part of Lit's LitNodeClient (7.x, connected) the SDK calls. */
export interface LitNodeClientLike {
  decrypt(params: {
    accessControlConditions: UserAddressCondition[];
    ciphertext: string;
    dataToEncryptHash: string;
    chain: string;
    authSig: AuthSig;
  }): Promise<{ decryptedData: Uint8Array }>;
}

export function litDecryptor(client: LitNodeClientLike): KeyDecryptor {
  return {
    async decryptKey(request) {
      const { decryptedData } = await client.decrypt({
        accessControlConditions: request.accessControlConditions,
        ciphertext: request.ciphertext,
        dataToEncryptHash: request.dataToEncryptHash,
        chain: request.chain,
        authSig: request.authSig,
      });
      return decryptedData;
    },
  };
}
