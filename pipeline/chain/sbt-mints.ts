/**
 * Soulbound mints within a block range: an ERC-5192 `Locked(tokenId)` with the token's mint
 * transfer (from the zero address), or an ERC-4973 `Attest(to, tokenId)`. For each: the
 * token URI (`tokenURI`) and, where the contract has it, the Semantic SBT statement
 * (`rdfOf`) by eth_call, and the metadata document (metadata-fetch.ts) for the name and
 * image. A bad URI or document leaves the mint with empty fields and its reason recorded
 * (sbt_mint_sources.metadata_reason, and a log line); it never fails the range.
 */
import { parseAbi, type Address, type PublicClient } from 'viem';
import type { Logger } from '../../shared/logger.ts';
import { fetchMetadata, sbtFields, type MetadataSettings } from './metadata-fetch.ts';
import { ZERO_ADDRESS, type ChainEvent } from './log-decoding.ts';
import { mapBounded } from './pool.ts';

const ABI = parseAbi([
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function rdfOf(uint256 tokenId) view returns (string)',
  'function ownerOf(uint256 tokenId) view returns (address)',
]);

export interface SbtMint {
  contract: string;
  tokenId: string;
  owner: string;
  blockNumber: number;
  txHash: string;
  logIndex: number;
  evidence: 'erc5192-locked' | 'erc4973-attest';
}

/** The mints the range's events prove. */
export async function findSbtMints(client: PublicClient, events: ChainEvent[]): Promise<SbtMint[]> {
  const mintTransfers = new Map<string, Extract<ChainEvent, { type: 'erc721' }>>();
  for (const e of events) if (e.type === 'erc721' && e.from === ZERO_ADDRESS) mintTransfers.set(`${e.contract}:${e.tokenId}`, e);
  const mints = new Map<string, SbtMint>();
  for (const e of events) {
    const key = `${e.contract}:${e.type === 'locked' || e.type === 'attest' ? e.tokenId : ''}`;
    if (e.type === 'attest') {
      mints.set(key, { contract: e.contract, tokenId: e.tokenId, owner: e.to, blockNumber: e.blockNumber, txHash: e.txHash, logIndex: e.logIndex, evidence: 'erc4973-attest' });
    } else if (e.type === 'locked' && !mints.has(key)) {
      const mint = mintTransfers.get(key);
      if (mint) {
        mints.set(key, { contract: e.contract, tokenId: e.tokenId, owner: mint.to, blockNumber: mint.blockNumber, txHash: mint.txHash, logIndex: mint.logIndex, evidence: 'erc5192-locked' });
      } else {
        // Locked after a mint of an earlier range: the holder is whoever owns it at that block.
        const owner = await client
          .readContract({ address: e.contract as Address, abi: ABI, functionName: 'ownerOf', args: [BigInt(e.tokenId)], blockNumber: BigInt(e.blockNumber) })
          .catch(() => undefined);
        if (owner) mints.set(key, { contract: e.contract, tokenId: e.tokenId, owner: owner.toLowerCase(), blockNumber: e.blockNumber, txHash: e.txHash, logIndex: e.logIndex, evidence: 'erc5192-locked' });
      }
    }
  }
  return [...mints.values()];
}

export interface ResolvedSbtMint extends SbtMint {
  tokenUri: string;
  rdfData: string;
  sbtName: string;
  imageUrl: string;
  metadataUrl: string;
  metadataStatus: 'ok' | 'no_uri' | 'refused' | 'failed' | 'invalid';
  metadataReason: string;
}

export class SbtMetadata {
  /** Contracts whose rdfOf reverted: the Semantic SBT interface is not there, do not ask again. */
  private readonly withoutRdf = new Set<string>();

  constructor(
    private readonly settings: MetadataSettings,
    private readonly logger: Logger,
  ) {}

  async resolve(client: PublicClient, chainId: number, mints: SbtMint[], concurrency: number): Promise<ResolvedSbtMint[]> {
    return mapBounded(mints, concurrency, (mint) => this.resolveOne(client, chainId, mint));
  }

  private async resolveOne(client: PublicClient, chainId: number, mint: SbtMint): Promise<ResolvedSbtMint> {
    const call = (functionName: 'tokenURI' | 'rdfOf') =>
      client.readContract({ address: mint.contract as Address, abi: ABI, functionName, args: [BigInt(mint.tokenId)] });
    const tokenUri = await call('tokenURI').then(
      (v) => v.slice(0, 4096),
      () => '',
    );
    let rdfData = '';
    const rdfKey = `${chainId}:${mint.contract}`;
    if (!this.withoutRdf.has(rdfKey)) {
      rdfData = await call('rdfOf').then(
        (v) => v.slice(0, 65_536),
        () => {
          this.withoutRdf.add(rdfKey);
          return '';
        },
      );
    }
    const resolved: ResolvedSbtMint = { ...mint, tokenUri, rdfData, sbtName: '', imageUrl: '', metadataUrl: '', metadataStatus: 'no_uri', metadataReason: 'the contract gave no token URI' };
    if (tokenUri === '') {
      this.logger.warn({ chainId, contract: mint.contract, tokenId: mint.tokenId, reason: resolved.metadataReason }, 'SBT mint ingested without metadata');
      return resolved;
    }
    const outcome = await fetchMetadata(tokenUri, this.settings);
    if (outcome.status !== 'ok') {
      this.logger.warn({ chainId, contract: mint.contract, tokenId: mint.tokenId, status: outcome.status, reason: outcome.reason }, 'SBT mint ingested without metadata');
      return { ...resolved, metadataStatus: outcome.status, metadataReason: outcome.reason };
    }
    const fields = sbtFields(outcome.document);
    return { ...resolved, ...fields, metadataUrl: tokenUri.startsWith('data:') ? '' : tokenUri, metadataStatus: 'ok', metadataReason: '' };
  }
}
