import { z } from 'zod';
import { address, chainId, decimalString, list, optionalText, optionalTimestamp, optionalUrl, timestamp } from './fields.ts';
import { defineKind } from './record-kind.ts';

/** Categories a project can be tagged with; user tags derive from these. */
export const sbtCategory = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9 &/-]{0,31}$/, 'must be a short label such as GameFi, DeFi or DAO');

/** An SBT mint's fields, whichever way it arrived (a file through sbtMintRecord, or the chain). */
export interface SbtMintFields {
  chainId: number;
  contract: string;
  tokenId: string;
  owner: string;
  sbtName: string;
  rdfData: string;
  imageUrl: string;
  metadataUrl: string;
  mintedAt: number;
}

/** Its sbt_mints row: the one place that names the table's columns for a mint. */
export function sbtMintRow(m: SbtMintFields) {
  return {
    chain_id: m.chainId,
    contract: m.contract,
    token_id: m.tokenId,
    owner: m.owner,
    sbt_name: m.sbtName,
    rdf_data: m.rdfData,
    image_url: m.imageUrl,
    metadata_url: m.metadataUrl,
    minted_at: m.mintedAt,
  };
}

export const sbtMintRecord = z
  .strictObject({
    chainId,
    contract: address,
    tokenId: decimalString,
    owner: address,
    sbtName: optionalText(256),
    rdfData: optionalText(65536),
    imageUrl: optionalUrl,
    metadataUrl: optionalUrl,
    mintedAt: timestamp,
  })
  .transform(sbtMintRow);

export const sbtIssuerRecord = z
  .strictObject({
    chainId,
    contract: address,
    issuer: z.string().trim().min(1).max(256),
    categories: list(sbtCategory, 16),
    updatedAt: optionalTimestamp,
  })
  .transform((i) => ({
    chain_id: i.chainId,
    contract: i.contract,
    issuer: i.issuer,
    categories: [...new Set(i.categories)],
    updated_at: i.updatedAt ?? Math.floor(Date.now() / 1000),
  }));

export const sbtMintsKind = defineKind({
  name: 'sbt-mints',
  table: 'sbt_mints',
  description: 'Soulbound tokens as minted to their owners.',
  schema: sbtMintRecord,
  example: {
    chainId: 1,
    contract: '0x22c1f6050e56d2876009903609a2cc3fef83b415',
    tokenId: '1024',
    owner: '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff',
    sbtName: 'Devcon 6 Attendee',
    rdfData: ':0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff :attended :devcon6 .',
    imageUrl: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi',
    metadataUrl: 'https://api.poap.tech/metadata/60695/1024',
    mintedAt: '2022-10-14T09:00:00Z',
  },
});

export const sbtIssuersKind = defineKind({
  name: 'sbt-issuers',
  table: 'sbt_issuers',
  description: 'Which project or organization issues an SBT contract, and its categories.',
  schema: sbtIssuerRecord,
  example: { chainId: 1, contract: '0x22c1f6050e56d2876009903609a2cc3fef83b415', issuer: 'POAP', categories: ['Event', 'DAO'] },
});
