/**
 * Who may decrypt a tag ciphertext, in Lit's access-control-condition language, and the
 * identity that binds it to one piece of data:
 *
 *   identity = "lit-accesscontrolcondition://" + hex(sha256(JSON of the canonical conditions))
 *                                              + "/" + dataToEncryptHash
 *
 * exactly as Lit's SDK computes it for `accessControlConditions` (its
 * canonicalAccessControlConditionFormatter fixes the key order below). The only condition
 * the service writes, and the only one the local custodians accept, is "the signer is
 * <address>" on a chain: Lit's `:userAddress` basic EVM condition. The data part binds
 * the domain too (dataToEncryptHash below).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base64ToBytes } from './base64.ts';

/** The statement a tag-access Sign-In with Ethereum message must carry. */
export const TAG_ACCESS_STATEMENT = 'Access to User Tag.';

export interface UserAddressCondition {
  contractAddress: '';
  standardContractType: '';
  chain: string;
  method: '';
  parameters: [':userAddress'];
  returnValueTest: { comparator: '='; value: string };
}

/**
 * Lit's names of the EVM chains the service knows, by chain id. A chain Lit does not know
 * (a local dev chain) gets "eip155:<id>", which the local custodians accept and Lit would not.
 */
const LIT_CHAIN_NAMES: Record<number, string> = {
  1: 'ethereum',
  10: 'optimism',
  56: 'bsc',
  137: 'polygon',
  8453: 'base',
  42161: 'arbitrum',
  11155111: 'sepolia',
};

export function litChainName(chainId: number): string {
  return LIT_CHAIN_NAMES[chainId] ?? `eip155:${chainId}`;
}

/** The one condition of a tag ciphertext: the authorizing signature is by `address` (lowercased). */
export function userAddressConditions(address: string, chainId: number): [UserAddressCondition] {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError('address must be a 0x-prefixed 20-byte hex address');
  return [
    {
      contractAddress: '',
      standardContractType: '',
      chain: litChainName(chainId),
      method: '',
      parameters: [':userAddress'],
      returnValueTest: { comparator: '=', value: address.toLowerCase() },
    },
  ];
}

/** hex(sha256(JSON of the conditions in Lit's canonical key order)). */
export function hashAccessControlConditions(conditions: readonly UserAddressCondition[]): string {
  const canonical = conditions.map((c) => ({
    contractAddress: c.contractAddress,
    chain: c.chain,
    standardContractType: c.standardContractType,
    method: c.method,
    parameters: c.parameters,
    returnValueTest: { comparator: c.returnValueTest.comparator, value: c.returnValueTest.value },
  }));
  return bytesToHex(sha256(new TextEncoder().encode(JSON.stringify(canonical))));
}

/** hex(sha256(the AES ciphertext of the tags)), `encryptedString` decoded. */
export function encryptedDataHash(encryptedString: string): string {
  return bytesToHex(sha256(base64ToBytes(encryptedString)));
}

/**
 * What a tag ciphertext's identity names as its data: the AES ciphertext of the tags AND
 * the domain the user authorized, hex(sha256("<domain>\n<encryptedDataHash>")). The key
 * ciphertext is thereby bound to that one blob and to that one dapp: a signature the user
 * gave another domain yields another identity, whose shares do not decrypt it. The client
 * rebuilds it from encryptedString and its own message; the custodians compute it from
 * the domain of the message they verified, never taking it from the request.
 */
export function dataToEncryptHash(domain: string, dataHash: string): string {
  if (!/^[0-9a-f]{64}$/.test(dataHash)) throw new TypeError('the encrypted data hash is 64 lowercase hex characters');
  return bytesToHex(sha256(new TextEncoder().encode(`${domain.toLowerCase()}\n${dataHash}`)));
}

export function identityOf(conditions: readonly UserAddressCondition[], dataHash: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(dataHash)) throw new TypeError('dataToEncryptHash is 64 lowercase hex characters');
  return new TextEncoder().encode(`lit-accesscontrolcondition://${hashAccessControlConditions(conditions)}/${dataHash}`);
}
