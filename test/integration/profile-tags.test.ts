import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { writeProfileTags } from '../../pipeline/materialize/write/profile-tags.ts';
import { ingestFiles, writeJsonLines } from '../support/pipeline-harness.ts';
import { useTestEnvironment } from '../support/test-environment.ts';

const env = useTestEnvironment();
const addr = (c: string) => `0x${c.repeat(40)}`;
const contract = (c: string) => `0x${c.repeat(40)}`;
const mint = (owner: string, issuer: string, tokenId: string) => ({
  chainId: 1,
  contract: contract(issuer),
  tokenId,
  owner,
  sbtName: `SBT ${tokenId}`,
  mintedAt: '2024-01-01T00:00:00Z',
});

describe('user tags', () => {
  it('are the sorted, deduplicated categories of the issuers of the SBTs on any of the profile addresses', async () => {
    await ingestFiles(env, 'profiles', [
      await writeJsonLines('profiles.jsonl', [
        { profileId: 'p_a', addresses: [addr('a'), addr('b')] },
        { profileId: 'p_b', addresses: [addr('c')] },
        { profileId: 'p_c', addresses: [addr('d')] }, // holds nothing
      ]),
    ]);
    await ingestFiles(env, 'sbt-issuers', [
      await writeJsonLines('issuers.jsonl', [
        { chainId: 1, contract: contract('1'), issuer: 'Arena', categories: ['GameFi', 'DAO'] },
        { chainId: 1, contract: contract('2'), issuer: 'Lender', categories: ['DeFi', 'DAO'] },
      ]),
    ]);
    await ingestFiles(env, 'sbt-mints', [
      await writeJsonLines('mints.jsonl', [
        mint(addr('a'), '1', '1'),
        mint(addr('b'), '2', '2'),
        mint(addr('b'), '1', '3'), // a second Arena SBT adds nothing new
        mint(addr('c'), '1', '4'),
        mint(addr('c'), '3', '5'), // an issuer nobody described: no tags from it
        mint(addr('e'), '2', '6'), // an address of no profile
      ]),
    ]);

    await writeProfileTags(env.ch, 7);

    const rows = await env.ch.query(
      sql`SELECT profile_id, tags FROM profile_tags WHERE snapshot_id = 7 ORDER BY profile_id`,
      z.object({ profile_id: z.string(), tags: z.array(z.string()) }),
    );
    expect(rows).toEqual([
      { profile_id: 'p_a', tags: ['DAO', 'DeFi', 'GameFi'] },
      { profile_id: 'p_b', tags: ['DAO', 'GameFi'] },
    ]);
  });
});
