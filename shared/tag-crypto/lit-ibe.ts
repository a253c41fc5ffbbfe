/**
 * Identity-based encryption on BLS12-381 exactly as Lit Protocol does it (Lit's
 * `encrypt(publicKey, message, identity)`, blsful's "time-lock" encryption with the
 * proof-of-possession scheme): public keys in G1, signatures (the decryption keys) in G2.
 * Whoever holds the network's BLS signature on `identity` decrypts; nobody else.
 *
 *   alpha = Hs(random 32 bytes)           r = Hs(alpha || sha256(M))
 *   U = r·G1      K = e(r·PK, H2(identity))      V = sha256(K) xor alpha
 *   W = shake128(alpha) xor (leb128(|M|) || M, zero-padded to 32 bytes)
 *   ciphertext = base64(U compressed || V || leb128(|W|) || W || 0x02)
 *
 * Hs is HKDF-SHA256 (salt "TIMELOCK_BLS12381_XOF:HKDF-SHA2-256_", ikm || 0x00, info
 * [0, 48], 48 bytes read big-endian mod r); scalars are written little-endian; H2 hashes
 * to G2 with the proof-of-possession DST; the trailing 0x02 is serde-bare's tag of
 * SignatureSchemes::ProofOfPossession. Decryption recomputes r and checks U = r·G1, so a
 * wrong key or a tampered ciphertext fails instead of returning garbage.
 *
 * All curve arithmetic is @noble/curves; this file only arranges it in Lit's format.
 * Pure (no Node built-ins): the SDK uses it in browsers too.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bytesToNumberBE, numberToBytesLE } from '@noble/curves/utils.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { shake128 } from '@noble/hashes/sha3.js';
import { concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { base64ToBytes, bytesToBase64 } from './base64.ts';

export const G1 = bls12_381.G1.Point;
export const G2 = bls12_381.G2.Point;
export type G1Point = InstanceType<typeof G1>;
export type G2Point = InstanceType<typeof G2>;
export const Fr = bls12_381.fields.Fr;

/** The DST Lit's network signs identities with (blsful's SIG_DST of the PoP scheme). */
export const IDENTITY_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
const TIMELOCK_SALT = new TextEncoder().encode('TIMELOCK_BLS12381_XOF:HKDF-SHA2-256_');
/** serde-bare's variant index of SignatureSchemes::ProofOfPossession. */
const SCHEME_PROOF_OF_POSSESSION = 2;
const SCALAR_BYTES = 32;
const G1_BYTES = 48;

const WRONG_KEY = 'decryption failed: wrong key or corrupted ciphertext';

export class DecryptionError extends Error {
  override name = 'DecryptionError';
}

/** The network public key from Lit's hex form (96 hex characters, compressed G1). */
export function publicKeyFromHex(hex: string): G1Point {
  const clean = hex.replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{96}$/.test(clean)) throw new TypeError('a BLS12-381 network public key is 96 hex characters (compressed G1)');
  const point = G1.fromBytes(hexToBytes(clean));
  if (point.is0()) throw new TypeError('the network public key is the identity point');
  return point;
}

export function hashIdentity(identity: Uint8Array): G2Point {
  return bls12_381.G2.hashToCurve(identity, { DST: IDENTITY_DST }) as G2Point;
}

/** Encrypts `message` so that only the holder of the network's signature on `identity` can read it. */
export function encryptToIdentity(publicKey: G1Point, message: Uint8Array, identity: Uint8Array, random32?: Uint8Array): string {
  const seed = random32 ?? globalThis.crypto.getRandomValues(new Uint8Array(32));
  const alpha = scalarBytes(hashToScalar(seed));
  const r = hashToScalar(concatBytes(alpha, sha256(message)));
  const k = bls12_381.pairing(publicKey.multiply(r), hashIdentity(identity));
  const u = G1.BASE.multiply(r);
  const v = xor(sha256(bls12_381.fields.Fp12.toBytes(k)), alpha);
  const plaintext = padded(concatBytes(leb128(message.length), message), 32);
  const w = xor(shake128(alpha, { dkLen: plaintext.length }), plaintext);
  return bytesToBase64(concatBytes(u.toBytes(true), v, leb128(w.length), w, new Uint8Array([SCHEME_PROOF_OF_POSSESSION])));
}

/** The plaintext, given the network's (combined) signature on the ciphertext's identity. */
export function decryptWithSignature(ciphertextBase64: string, signature: G2Point): Uint8Array {
  const { u, v, w } = parseCiphertext(ciphertextBase64);
  const alpha = xor(sha256(bls12_381.fields.Fp12.toBytes(bls12_381.pairing(u, signature))), v);
  const plaintext = xor(shake128(alpha, { dkLen: w.length }), w);
  // With a wrong key the plaintext is noise, so its length field may not even parse:
  // that is the same failure as a length that does not fit.
  const length = readLeb128(plaintext);
  if (!length || length.value > plaintext.length - length.size) throw new DecryptionError(WRONG_KEY);
  const message = plaintext.slice(length.size, length.size + length.value);
  const r = hashToScalar(concatBytes(alpha, sha256(message)));
  if (!G1.BASE.multiply(r).equals(u)) throw new DecryptionError(WRONG_KEY);
  return message;
}

interface Ciphertext {
  u: G1Point;
  v: Uint8Array;
  w: Uint8Array;
}

export function parseCiphertext(ciphertextBase64: string): Ciphertext {
  let bytes: Uint8Array;
  try {
    bytes = base64ToBytes(ciphertextBase64);
  } catch {
    throw new DecryptionError('ciphertext is not base64');
  }
  if (bytes.length < G1_BYTES + 32 + 2) throw new DecryptionError('ciphertext too short');
  let u: G1Point;
  try {
    u = G1.fromBytes(bytes.subarray(0, G1_BYTES));
  } catch {
    throw new DecryptionError('ciphertext does not start with a G1 point');
  }
  const v = bytes.slice(G1_BYTES, G1_BYTES + 32);
  const wLength = readLeb128(bytes.subarray(G1_BYTES + 32));
  if (!wLength) throw new DecryptionError('ciphertext length field is malformed');
  const wStart = G1_BYTES + 32 + wLength.size;
  if (wStart + wLength.value + 1 !== bytes.length || bytes[bytes.length - 1] !== SCHEME_PROOF_OF_POSSESSION) {
    throw new DecryptionError('ciphertext is not in the expected format');
  }
  return { u, v, w: bytes.slice(wStart, wStart + wLength.value) };
}

/** blsful's hash to scalar: HKDF-SHA256 with the time-lock salt, 48 bytes big-endian mod r. */
function hashToScalar(input: Uint8Array): bigint {
  const okm = hkdf(sha256, concatBytes(input, new Uint8Array([0])), TIMELOCK_SALT, new Uint8Array([0, 48]), 48);
  const scalar = Fr.create(bytesToNumberBE(okm));
  // Probability 2^-255; refusing is simpler than blsful's retry loop and never happens.
  if (scalar === 0n) throw new Error('hash to scalar gave zero');
  return scalar;
}

function scalarBytes(scalar: bigint): Uint8Array {
  return numberToBytesLE(scalar, SCALAR_BYTES);
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

function padded(bytes: Uint8Array, minimum: number): Uint8Array {
  if (bytes.length >= minimum) return bytes;
  const out = new Uint8Array(minimum);
  out.set(bytes);
  return out;
}

/** Unsigned LEB128, as serde-bare and uint-zigzag write lengths. */
function leb128(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    out.push(rest > 0 ? byte | 0x80 : byte);
  } while (rest > 0);
  return new Uint8Array(out);
}

/** The value and its size in bytes, or undefined when no byte of the first five ends the number. */
function readLeb128(bytes: Uint8Array): { value: number; size: number } | undefined {
  let value = 0;
  for (let i = 0; i < Math.min(bytes.length, 5); i++) {
    value += (bytes[i]! & 0x7f) * 2 ** (7 * i);
    if ((bytes[i]! & 0x80) === 0) return { value, size: i + 1 };
  }
  return undefined;
}
