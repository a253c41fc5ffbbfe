/**
 * Threshold BLS over Shamir shares of one master scalar, in Lit's share format. The
 * master key signs an identity (H2(identity)·s, in G2); that signature is the decryption
 * key of every ciphertext made for the identity (lit-ibe.ts). No node holds s: node i
 * holds f(i) of a random polynomial f of degree t-1 with f(0) = s, returns H2(identity)·f(i),
 * and any t of those combine (Lagrange at 0) into H2(identity)·s; t-1 say nothing about it.
 *
 * A share travels as Lit 7.x writes it: {"ProofOfPossession": hex(1-byte index || 96-byte
 * compressed G2 point)}, which is what @lit-protocol/crypto's combine functions read.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { Fr, G1, G2, hashIdentity, type G1Point, type G2Point } from './lit-ibe.ts';

export interface KeyShare {
  /** x of the share: 1..n. */
  index: number;
  /** f(index). */
  scalar: bigint;
}

export interface SignatureShare {
  index: number;
  point: G2Point;
}

/** Lit 7.x's wire form of a BLS signature share. */
export interface LitSignatureShare {
  ProofOfPossession: string;
}

export const MAX_NODES = 255;

export function randomScalar(): bigint {
  // 48 random bytes mod r: the bias is below 2^-128.
  for (;;) {
    const scalar = Fr.create(bytesToNumberBE(globalThis.crypto.getRandomValues(new Uint8Array(48))));
    if (scalar !== 0n) return scalar;
  }
}

/** n shares of `master`, any `threshold` of which recover it. */
export function splitSecret(master: bigint, nodes: number, threshold: number): KeyShare[] {
  if (!Number.isInteger(nodes) || nodes < 2 || nodes > MAX_NODES) throw new RangeError(`nodes must be 2..${MAX_NODES}`);
  if (!Number.isInteger(threshold) || threshold < 2 || threshold > nodes) throw new RangeError('threshold must be 2..nodes');
  const coefficients = [Fr.create(master), ...Array.from({ length: threshold - 1 }, randomScalar)];
  return Array.from({ length: nodes }, (_, i) => ({ index: i + 1, scalar: evaluate(coefficients, BigInt(i + 1)) }));
}

function evaluate(coefficients: bigint[], x: bigint): bigint {
  // Horner, highest coefficient first.
  return coefficients.reduceRight((acc, c) => Fr.add(Fr.mul(acc, x), c), 0n);
}

export function publicKeyOf(scalar: bigint): G1Point {
  return G1.BASE.multiply(scalar);
}

export function scalarToHex(scalar: bigint): string {
  return bytesToHex(numberToBytesBE(scalar, 32));
}

export function scalarFromHex(hex: string): bigint {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TypeError('a scalar is 64 lowercase hex characters');
  const scalar = bytesToNumberBE(hexToBytes(hex));
  if (scalar === 0n || scalar >= Fr.ORDER) throw new TypeError('scalar out of range');
  return scalar;
}

export function signIdentityShare(share: KeyShare, identity: Uint8Array): SignatureShare {
  return { index: share.index, point: hashIdentity(identity).multiply(share.scalar) };
}

export function toLitShare(share: SignatureShare): LitSignatureShare {
  const bytes = new Uint8Array(97);
  bytes[0] = share.index;
  bytes.set(share.point.toBytes(true), 1);
  return { ProofOfPossession: bytesToHex(bytes) };
}

export function fromLitShare(share: LitSignatureShare): SignatureShare {
  const hex = share?.ProofOfPossession;
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{194}$/.test(hex)) throw new TypeError('a signature share is 97 bytes of hex');
  const bytes = hexToBytes(hex.toLowerCase());
  if (bytes[0] === 0) throw new TypeError('share index 0 is not a share');
  return { index: bytes[0]!, point: G2.fromBytes(bytes.subarray(1)) };
}

/** Lagrange interpolation at 0 of distinct shares: the master's signature if t valid shares are given. */
export function combineSignatureShares(shares: SignatureShare[]): G2Point {
  const xs = shares.map((s) => BigInt(s.index));
  if (new Set(xs).size !== xs.length) throw new RangeError('signature shares must come from distinct nodes');
  if (shares.length === 0) throw new RangeError('no signature shares');
  return shares.reduce((sum, share, i) => {
    let lambda = 1n;
    for (let j = 0; j < xs.length; j++) {
      if (j !== i) lambda = Fr.mul(lambda, Fr.div(xs[j]!, Fr.sub(xs[j]!, xs[i]!)));
    }
    return sum.add(share.point.multiply(lambda));
  }, G2.ZERO);
}

/** e(G1, signature) = e(publicKey, H2(identity)): a signature (or share) made by that key on that identity. */
export function verifyIdentitySignature(publicKey: G1Point, identity: Uint8Array, signature: G2Point): boolean {
  if (signature.is0()) return false;
  const lhs = bls12_381.pairing(G1.BASE, signature);
  const rhs = bls12_381.pairing(publicKey, hashIdentity(identity));
  return bls12_381.fields.Fp12.eql(lhs, rhs);
}
