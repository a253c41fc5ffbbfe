/**
 * With CHAIN_RPC_URLS configured, SIWE signatures are checked through the chain, so that
 * smart-contract wallets (EIP-1271, and EIP-6492 for wallets not yet deployed) can sign
 * in; ordinary wallets are still checked locally first (siwe-message-verification.ts).
 * Used by the API and by the custodians.
 */
import { createPublicClient, fallback, http } from 'viem';
import type { Config } from '../config.ts';
import type { SignatureVerifierClient } from './siwe-message-verification.ts';

export function createSignatureClient(config: Pick<Config, 'CHAIN_RPC_URLS'>): SignatureVerifierClient | undefined {
  if (config.CHAIN_RPC_URLS.length === 0) return undefined;
  return createPublicClient({
    transport: fallback(config.CHAIN_RPC_URLS.map((url) => http(url, { timeout: 5_000, retryCount: 1 }))),
  });
}
