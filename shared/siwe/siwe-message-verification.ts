/**
 * Sign-In with Ethereum (EIP-4361) messages, verified in full: the message parses, has
 * every field the EIP requires, names an allowed domain and a supported chain, is valid
 * now, (optionally) carries a given statement and a bounded expiry, and is signed by its
 * address. Used by the API's login (which adds the single-use nonce) and tag endpoint,
 * and by the custodians, which re-verify a tag authorization themselves.
 */
import { SiweMessage } from 'siwe';
import { isHex, verifyMessage, type Address, type Hex } from 'viem';

/** What a viem PublicClient offers for EIP-1271 / EIP-6492 (smart wallet) signatures. */
export interface SignatureVerifierClient {
  verifyMessage(args: { address: Address; message: string; signature: Hex }): Promise<boolean>;
}

export const SIWE_ERROR_REASONS = ['invalid', 'statement', 'domain', 'chain', 'not-yet-valid', 'expired', 'validity', 'signature'] as const;
export type SiweErrorReason = (typeof SIWE_ERROR_REASONS)[number];

/** A message or signature that does not pass; `reason` is closed so callers can map it to their codes. */
export class SiweError extends Error {
  override name = 'SiweError';

  constructor(
    readonly reason: SiweErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SiweCheck {
  /** The EIP-4361 message exactly as signed. */
  message: string;
  signature: string;
  /** Hosts (with port if any) the message may name as its `domain`, compared case-insensitively; undefined: any. */
  allowedDomains?: readonly string[] | undefined;
  /** When given, the message's chain id must be one of these. */
  supportedChainIds?: readonly number[] | undefined;
  /** When given, the message's statement must equal it. */
  expectedStatement?: string | undefined;
  /** When given, the message must carry an expirationTime at most this long after issuedAt. */
  maxValidityMs?: number | undefined;
  /** When given, signatures are checked through it, which also accepts smart-wallet signatures. */
  publicClient?: SignatureVerifierClient | undefined;
  now?: Date;
}

export interface VerifiedSiwe {
  /** Lowercase 0x address: the signer. */
  address: string;
  chainId: number;
  /** Lowercase domain. */
  domain: string;
  nonce: string;
  issuedAt: number;
  expirationTime: number | undefined;
}

/** Tolerated difference between the wallet's clock and ours for issuedAt and notBefore. */
export const CLOCK_SKEW_MS = 60_000;
/** Real SIWE messages are a few hundred bytes; refuse to feed the parser anything large. */
const MAX_MESSAGE_LENGTH = 8_192;

/** Every check but the signature first (they are cheap), then the signature. */
export async function verifySiweMessage(check: SiweCheck): Promise<VerifiedSiwe> {
  const fields = requiredFieldsOf(parsedMessage(check.message));
  assertStatement(fields, check.expectedStatement);
  assertDomain(fields, check.allowedDomains);
  assertChain(fields, check.supportedChainIds);
  assertValidAt(fields, check.now ?? new Date());
  assertValidityWindow(fields, check.maxValidityMs);
  await assertSignedBy(fields.address, check, check.publicClient);
  return {
    address: fields.address.toLowerCase(),
    chainId: fields.chainId,
    domain: fields.domain.toLowerCase(),
    nonce: fields.nonce,
    issuedAt: fields.issuedAt,
    expirationTime: fields.expirationTime,
  };
}

function parsedMessage(message: string): SiweMessage {
  if (typeof message !== 'string' || message.length > MAX_MESSAGE_LENGTH) {
    throw new SiweError('invalid', 'SIWE message missing or too long');
  }
  try {
    return new SiweMessage(message);
  } catch (error) {
    throw new SiweError('invalid', 'not a valid EIP-4361 message', { cause: error });
  }
}

interface SiweFields {
  domain: string;
  address: Address;
  statement: string | undefined;
  chainId: number;
  nonce: string;
  issuedAt: number;
  expirationTime: number | undefined;
  notBefore: number | undefined;
}

/**
 * The fields EIP-4361 requires, checked here because siwe's constructor lets some of
 * them through missing (see the toolchain notes on the public test vectors).
 */
function requiredFieldsOf(m: SiweMessage): SiweFields {
  const missing = (field: string) => new SiweError('invalid', `SIWE message lacks a valid ${field}`);
  if (!m.domain) throw missing('domain');
  if (typeof m.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(m.address)) throw missing('address');
  if (!m.uri) throw missing('uri');
  if (m.version !== '1') throw missing('version');
  if (!Number.isSafeInteger(m.chainId) || m.chainId < 1) throw missing('chain id');
  if (typeof m.nonce !== 'string' || !/^[A-Za-z0-9]{8,}$/.test(m.nonce)) throw missing('nonce');
  const issuedAt = timeOf(m.issuedAt);
  if (issuedAt === undefined) throw missing('issuedAt');
  const expirationTime = optionalTimeOf(m.expirationTime, missing('expirationTime'));
  const notBefore = optionalTimeOf(m.notBefore, missing('notBefore'));
  return {
    domain: m.domain,
    address: m.address as Address,
    statement: m.statement,
    chainId: m.chainId,
    nonce: m.nonce,
    issuedAt,
    expirationTime,
    notBefore,
  };
}

function timeOf(value: string | undefined): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Absent is fine; present but unparseable is not. */
function optionalTimeOf(value: string | undefined, whenInvalid: SiweError): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = timeOf(value);
  if (ms === undefined) throw whenInvalid;
  return ms;
}

function assertStatement(fields: SiweFields, expected: string | undefined): void {
  if (expected !== undefined && fields.statement !== expected) {
    throw new SiweError('statement', `SIWE statement must be exactly "${expected}"`);
  }
}

function assertDomain(fields: SiweFields, allowedDomains: readonly string[] | undefined): void {
  if (allowedDomains === undefined) return;
  const domain = fields.domain.toLowerCase();
  if (!allowedDomains.some((allowed) => allowed.toLowerCase() === domain)) {
    throw new SiweError('domain', 'SIWE message was signed for another domain');
  }
}

function assertChain(fields: SiweFields, supportedChainIds: readonly number[] | undefined): void {
  if (supportedChainIds && !supportedChainIds.includes(fields.chainId)) {
    throw new SiweError('chain', `SIWE chain id ${fields.chainId} is not supported`);
  }
}

function assertValidAt(fields: SiweFields, now: Date): void {
  const t = now.getTime();
  if (fields.issuedAt > t + CLOCK_SKEW_MS) throw new SiweError('not-yet-valid', 'SIWE message issued in the future');
  if (fields.notBefore !== undefined && fields.notBefore > t + CLOCK_SKEW_MS) {
    throw new SiweError('not-yet-valid', 'SIWE message not valid yet (notBefore)');
  }
  // No skew on expiry: the signer chose the deadline, we do not extend it.
  if (fields.expirationTime !== undefined && fields.expirationTime <= t) {
    throw new SiweError('expired', 'SIWE message expired');
  }
}

/** A long-lived authorization is a standing credential: bound it. */
function assertValidityWindow(fields: SiweFields, maxValidityMs: number | undefined): void {
  if (maxValidityMs === undefined) return;
  if (fields.expirationTime === undefined) throw new SiweError('validity', 'SIWE message must carry an expirationTime');
  if (fields.expirationTime - fields.issuedAt > maxValidityMs) {
    throw new SiweError('validity', `SIWE message expirationTime is more than ${Math.round(maxValidityMs / 1000)} s after issuedAt`);
  }
}

/**
 * The signature must be over the message exactly as received, by the address it names.
 * Local ECDSA recovery first: EOA signatures (nearly all) then need no RPC at all. Only
 * when that fails and a client is given do we ask the chain (EIP-1271 / EIP-6492); an
 * error from that call (node unreachable) propagates as is, because it says nothing about
 * the user's signature and should not be reported as a bad one.
 */
async function assertSignedBy(
  address: Address,
  check: Pick<SiweCheck, 'message' | 'signature'>,
  client: SignatureVerifierClient | undefined,
): Promise<void> {
  const { message, signature } = check;
  if (typeof signature !== 'string' || !isHex(signature, { strict: true })) {
    throw new SiweError('signature', 'signature is not hex');
  }
  if (await recoversTo(address, message, signature)) return;
  if (client && (await client.verifyMessage({ address, message, signature }))) return;
  throw new SiweError('signature', 'signature does not match the message address');
}

/** Malformed signatures make recovery throw: that is simply "not signed by this address". */
async function recoversTo(address: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return await verifyMessage({ address, message, signature });
  } catch {
    return false;
  }
}
