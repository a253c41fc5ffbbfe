/**
 * The "Access to User Tag." authorization: an EIP-4361 message the user signs once and
 * then sends with every tag request (the API checks it, and the custodians check it again
 * before they release their decryption shares).
 */
import type { Address, Hex } from 'viem';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';
import { TAG_ACCESS_STATEMENT } from '../shared/tag-crypto/access-conditions.ts';

/** What the SDK needs of a signer: a viem LocalAccount (privateKeyToAccount, mnemonicToAccount, ...) has both. */
export interface MessageSigner {
  address: Address;
  signMessage(args: { message: string }): Promise<Hex>;
}

export interface TagAccessOptions {
  /** Host of the dapp, one of its ApiKey's allowed domains (e.g. "app.example.com"). */
  domain: string;
  /** The dapp's URI (e.g. "https://app.example.com"). */
  uri: string;
  chainId: number;
  /** How long the authorization holds: at most 24 h by default on the server. Default 1 h. */
  expiresInSeconds?: number;
  now?: Date;
}

/** A signed tag authorization: send it as `message` and `sig`, and hand it to the decryptor as the authSig. */
export interface TagAuthorization {
  message: string;
  sig: Hex;
  address: Address;
}

export function createTagAccessMessage(address: Address, options: TagAccessOptions): string {
  const issuedAt = options.now ?? new Date();
  return createSiweMessage({
    domain: options.domain,
    address,
    statement: TAG_ACCESS_STATEMENT,
    uri: options.uri,
    version: '1',
    chainId: options.chainId,
    nonce: generateSiweNonce(),
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + (options.expiresInSeconds ?? 3600) * 1000),
  });
}

export async function signTagAccess(signer: MessageSigner, options: TagAccessOptions): Promise<TagAuthorization> {
  const message = createTagAccessMessage(signer.address, options);
  return { message, sig: await signer.signMessage({ message }), address: signer.address };
}

/** Lit's AuthSig shape of an authorization (what Lit nodes and the local custodians read). */
export function authSigOf(authorization: TagAuthorization) {
  return {
    sig: authorization.sig,
    derivedVia: 'web3.eth.personal.sign',
    signedMessage: authorization.message,
    address: authorization.address.toLowerCase(),
  };
}
