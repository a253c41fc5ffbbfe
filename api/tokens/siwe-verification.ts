/**
 * Sign-In with Ethereum (EIP-4361) login: a signed message proves control of an address
 * to one of our domains, once (its nonce is single-use), within its validity window.
 *
 * Every check that can fail runs before the nonce is consumed, so a rejected attempt
 * (wrong domain, clock skew, a bad signature) leaves the user's nonce usable for a retry.
 */
import { SiweMessage } from 'siwe';
import { isHex, verifyMessage, type Address, type Hex } from 'viem';
import type { NonceStore } from './siwe-nonces.ts';
import { TokenError } from './token-error.ts';

/** What a viem PublicClient offers for EIP-1271 / EIP-6492 (smart wallet) signatures. */
export interface SignatureVerifierClient {
  verifyMessage(args: { address: Address; message: string; signature: Hex }): Promise<boolean>;
}

export interface SiweLoginRequest {
  /** The EIP-4361 message exactly as signed. */
  message: string;
  signature: string;
  /** Hosts (with port if any) the message may name as its `domain`; compared case-insensitively. */
  allowedDomains: readonly string[];
  nonces: Pick<NonceStore, 'consume'>;
  now?: Date;
  /** When given, the message's chain id must be one of these. */
  supportedChainIds?: readonly number[];
  /** When given, signatures are checked through it, which also accepts smart-wallet signatures. */
  publicClient?: SignatureVerifierClient;
  /** When given, the message's statement must equal it (the tag endpoint: "Access to User Tag."). */
  expectedStatement?: string;
}

export interface SiweLogin {
  /** Lowercase 0x address. */
  address: string;
  chainId: number;
  /** The message's domain (lowercase), one of allowedDomains: what the user signed in to. */
  domain: string;
}

/** Tolerated difference between the wallet's clock and ours for issuedAt and notBefore. */
export const CLOCK_SKEW_MS = 60_000;
/** Real SIWE messages are a few hundred bytes; refuse to feed the parser anything large. */
const MAX_MESSAGE_LENGTH = 8_192;

export async function verifySiweLogin(request: SiweLoginRequest): Promise<SiweLogin> {
  const now = request.now ?? new Date();
  const fields = requiredFieldsOf(parsedMessage(request.message));
  assertStatement(fields, request.expectedStatement);
  assertDomain(fields, request.allowedDomains);
  assertChain(fields, request.supportedChainIds);
  assertValidAt(fields, now);
  await assertSignedBy(fields.address, request, request.publicClient);
  // Last: only an otherwise valid login may spend the nonce.
  if (!(await request.nonces.consume(fields.nonce))) {
    throw new TokenError('nonce', 'SIWE nonce unknown, expired or already used');
  }
  return { address: fields.address.toLowerCase(), chainId: fields.chainId, domain: fields.domain.toLowerCase() };
}

function parsedMessage(message: string): SiweMessage {
  if (typeof message !== 'string' || message.length > MAX_MESSAGE_LENGTH) {
    throw new TokenError('invalid', 'SIWE message missing or too long');
  }
  try {
    return new SiweMessage(message);
  } catch (error) {
    throw new TokenError('invalid', 'not a valid EIP-4361 message', { cause: error });
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
  const missing = (field: string) => new TokenError('invalid', `SIWE message lacks a valid ${field}`);
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
function optionalTimeOf(value: string | undefined, whenInvalid: TokenError): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = timeOf(value);
  if (ms === undefined) throw whenInvalid;
  return ms;
}

function assertStatement(fields: SiweFields, expected: string | undefined): void {
  if (expected !== undefined && fields.statement !== expected) {
    throw new TokenError('statement', 'SIWE statement is not the one this endpoint requires');
  }
}

function assertDomain(fields: SiweFields, allowedDomains: readonly string[]): void {
  const domain = fields.domain.toLowerCase();
  if (!allowedDomains.some((allowed) => allowed.toLowerCase() === domain)) {
    throw new TokenError('domain', 'SIWE message was signed for another domain');
  }
}

function assertChain(fields: SiweFields, supportedChainIds: readonly number[] | undefined): void {
  if (supportedChainIds && !supportedChainIds.includes(fields.chainId)) {
    throw new TokenError('chain', `SIWE chain id ${fields.chainId} is not supported`);
  }
}

function assertValidAt(fields: SiweFields, now: Date): void {
  const t = now.getTime();
  if (fields.issuedAt > t + CLOCK_SKEW_MS) throw new TokenError('not-yet-valid', 'SIWE message issued in the future');
  if (fields.notBefore !== undefined && fields.notBefore > t + CLOCK_SKEW_MS) {
    throw new TokenError('not-yet-valid', 'SIWE message not valid yet (notBefore)');
  }
  // No skew on expiry: the signer chose the deadline, we do not extend it.
  if (fields.expirationTime !== undefined && fields.expirationTime <= t) {
    throw new TokenError('expired', 'SIWE message expired');
  }
}

/**
 * The signature must be over the message exactly as received, by the address it names.
 * Local ECDSA recovery first: EOA logins (nearly all) then need no RPC at all. Only when
 * that fails and a client is given do we ask the chain (EIP-1271 / EIP-6492); an error
 * from that call (node unreachable) propagates as is, because it says nothing about the
 * user's signature and should not be reported as a bad one.
 */
async function assertSignedBy(
  address: Address,
  request: Pick<SiweLoginRequest, 'message' | 'signature'>,
  client: SignatureVerifierClient | undefined,
): Promise<void> {
  const { message, signature } = request;
  if (typeof signature !== 'string' || !isHex(signature, { strict: true })) {
    throw new TokenError('signature', 'signature is not hex');
  }
  if (await recoversTo(address, message, signature)) return;
  if (client && (await client.verifyMessage({ address, message, signature }))) return;
  throw new TokenError('signature', 'signature does not match the message address');
}

/** Malformed signatures make recovery throw: that is simply "not signed by this address". */
async function recoversTo(address: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return await verifyMessage({ address, message, signature });
  } catch {
    return false;
  }
}
