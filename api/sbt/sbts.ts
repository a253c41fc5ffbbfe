/** SBTs held by a user, through sbt_mints_by_owner (ordered by owner). */
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { sql } from '../../shared/clickhouse/sql-literal.ts';
import { profileAddressesWith, type IdentifierKind } from '../common/profile-lookup.ts';

export const sbtSchema = z
  .object({
    contractAddress: z.string().meta({ example: '0x22c1f6050e56d2876009903609a2cc3fef83b415' }),
    sbtName: z.string().meta({ example: 'Devcon 6 Attendee' }),
    tokenId: z.string().meta({ description: 'Decimal string', example: '1024' }),
    rdfData: z.string(),
    imageUrl: z.string(),
    metadataUrl: z.string(),
  })
  .meta({ id: 'SBT' });

export type Sbt = z.infer<typeof sbtSchema>;

const sbtRow = z.object({
  contract: z.string(),
  sbt_name: z.string(),
  token_id: z.string(),
  rdf_data: z.string(),
  image_url: z.string(),
  metadata_url: z.string(),
});

/**
 * The SBTs of the profile an identifier belongs to (those held by any of its addresses), and
 * for an address also those it holds itself, profile or not: one query, without a round trip
 * for the profile's addresses first.
 */
export async function sbtsOfIdentifier(ch: ClickHouse, kind: IdentifierKind, identifier: string): Promise<Sbt[]> {
  const rows = await ch.query(
    sql`SELECT contract, sbt_name, token_id, rdf_data, image_url, metadata_url
        FROM sbt_mints_by_owner FINAL
        WHERE owner IN (${profileAddressesWith(kind, identifier)})
        ${kind === 'address' ? sql`OR owner = ${identifier}` : sql``}
        ORDER BY chain_id, contract, length(token_id), token_id`,
    sbtRow,
  );
  return rows.map((r) => ({
    contractAddress: r.contract,
    sbtName: r.sbt_name,
    tokenId: r.token_id,
    rdfData: r.rdf_data,
    imageUrl: r.image_url,
    metadataUrl: r.metadata_url,
  }));
}
