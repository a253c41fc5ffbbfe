/**
 * What a custodian checks before it signs an identity: the request names Lit-style access
 * control conditions (only "the signer is <address>" is accepted), the hash of the
 * encrypted data, and the user's authSig (the same `sig` and `message` the tag endpoint
 * got). The
 * custodian trusts nobody's word for any of it: it re-verifies the Sign-In with Ethereum
 * message (statement "Access to User Tag.", validity window, supported chain, signature,
 * EIP-1271/6492 through CHAIN_RPC_URLS), checks that its signer satisfies the condition,
 * and derives the identity itself, binding the domain of the message it verified (so a
 * signature given to another dapp yields another identity). Which domains an ApiKey may
 * use is the API's business: no domain list is kept here (docs/tags.md, trust model).
 */
import { z } from 'zod';
import type { Config } from '../shared/config.ts';
import { SiweError, verifySiweMessage, type SignatureVerifierClient } from '../shared/siwe/siwe-message-verification.ts';
import { dataToEncryptHash, identityOf, litChainName, TAG_ACCESS_STATEMENT, type UserAddressCondition } from '../shared/tag-crypto/access-conditions.ts';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

const userAddressCondition = z.strictObject({
  contractAddress: z.literal(''),
  standardContractType: z.literal(''),
  chain: z.string().min(1).max(64),
  method: z.literal(''),
  parameters: z.tuple([z.literal(':userAddress')]),
  returnValueTest: z.strictObject({ comparator: z.literal('='), value: address }),
});

export const shareRequestSchema = z.strictObject({
  accessControlConditions: z.tuple([userAddressCondition], { error: 'exactly one ":userAddress" condition is supported' }),
  /** hex(sha256(encryptedString decoded)); the custodian binds the message's domain to it. */
  encryptedDataHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'),
  /** Lit's AuthSig shape. */
  authSig: z.object({
    sig: z.string().regex(/^0x[0-9a-fA-F]+$/, 'must be 0x-prefixed hex').max(20_000),
    derivedVia: z.string().optional(),
    signedMessage: z.string().min(1).max(4096),
    address,
  }),
});
export type ShareRequest = z.infer<typeof shareRequestSchema>;

/** A refusal with the HTTP status and the machine-readable reason the custodian answers with. */
export class ShareRefusal extends Error {
  override name = 'ShareRefusal';

  constructor(
    readonly status: 400 | 401 | 403,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ShareAuthorizationDeps {
  config: Pick<Config, 'TAG_MESSAGE_MAX_VALIDITY_SECONDS' | 'CHAIN_NAMES'>;
  publicClient?: SignatureVerifierClient | undefined;
  now?: Date;
}

/** The identity to sign, once the request's authorization holds; a ShareRefusal otherwise. */
export async function authorizedIdentity(body: unknown, deps: ShareAuthorizationDeps): Promise<{ identity: Uint8Array; signer: string }> {
  const parsed = shareRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ShareRefusal(400, 'invalid-request', `invalid request: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const request = parsed.data;
  const siwe = await verifySiweMessage({
    message: request.authSig.signedMessage,
    signature: request.authSig.sig,
    expectedStatement: TAG_ACCESS_STATEMENT,
    maxValidityMs: deps.config.TAG_MESSAGE_MAX_VALIDITY_SECONDS * 1000,
    supportedChainIds: [...deps.config.CHAIN_NAMES.keys()],
    publicClient: deps.publicClient,
    ...(deps.now ? { now: deps.now } : {}),
  }).catch((error: unknown) => {
    throw error instanceof SiweError ? new ShareRefusal(401, `auth-sig-${error.reason}`, `authSig rejected: ${error.message}`) : error;
  });
  if (request.authSig.address.toLowerCase() !== siwe.address) {
    throw new ShareRefusal(401, 'auth-sig-address', 'authSig rejected: its address is not the address of its message');
  }
  const [condition] = request.accessControlConditions;
  assertConditionHolds(condition, siwe.address, siwe.chainId);
  const boundHash = dataToEncryptHash(siwe.domain, request.encryptedDataHash);
  return { identity: identityOf([condition as UserAddressCondition], boundHash), signer: siwe.address };
}

function assertConditionHolds(condition: z.infer<typeof userAddressCondition>, signer: string, chainId: number): void {
  if (condition.returnValueTest.value.toLowerCase() !== signer) {
    throw new ShareRefusal(403, 'condition-not-met', 'access condition not met: the signer is not the address the condition names');
  }
  if (condition.chain !== litChainName(chainId)) {
    throw new ShareRefusal(403, 'condition-not-met', `access condition not met: the condition is for chain "${condition.chain}", the authorization for "${litChainName(chainId)}"`);
  }
}
