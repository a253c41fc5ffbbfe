/** GET /api/v1/sbt/list: the SBTs a user holds, by address, social handle or game-platform id. */
import type { Router } from 'express';
import type { Guards } from '../common/endpoints.ts';
import { z } from 'zod';
import type { ClickHouse } from '../../shared/clickhouse/client.ts';
import { address, identifier, socialHandle } from '../../shared/records/fields.ts';
import { ApiError, envelopeSchema, sendSuccess } from '../common/envelope.ts';
import { profileIdBy, type IdentifierKind } from '../common/profile-lookup.ts';
import { parseQuery, parseWith } from '../common/request-validation.ts';
import { sbtSchema, sbtsOfIdentifier, type Sbt } from './sbts.ts';

/** Exactly one identifier: the interface leaves several or none open, so both are refused. */
export const userIdentifierQuery = z.object({
  address: z.string().optional().meta({ description: 'Wallet address (any case)', example: '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff' }),
  socialUsername: z.string().optional().meta({ description: 'Social network handle (case-insensitive)', example: 'alice_eth' }),
  gamePlatformId: z.string().optional().meta({ description: 'Game-platform account id', example: 'steam:76561198000000001' }),
});

export const sbtListResponse = envelopeSchema(z.array(sbtSchema));

export interface UserIdentifier {
  kind: IdentifierKind;
  value: string;
}

export function oneIdentifier(query: z.output<typeof userIdentifierQuery>): UserIdentifier {
  const given = (['address', 'socialUsername', 'gamePlatformId'] as const).filter((name) => query[name] !== undefined);
  if (given.length !== 1) {
    throw new ApiError(
      'invalidParameter',
      `invalid parameter: give exactly one of address, socialUsername, gamePlatformId (got ${given.length === 0 ? 'none' : given.join(', ')})`,
    );
  }
  if (query.address !== undefined) return { kind: 'address', value: parseWith(address, query.address, 'address') };
  if (query.socialUsername !== undefined) return { kind: 'social', value: parseWith(socialHandle, query.socialUsername, 'socialUsername') };
  return { kind: 'game', value: parseWith(identifier, query.gamePlatformId, 'gamePlatformId') };
}

/** Registers on `router` (see recommendRoute). */
export function sbtListRoute(deps: { ch: ClickHouse }, before: Guards, router: Router): Router {
  return router.get('/api/v1/sbt/list', ...before('sbt-list'), async (req, res) => {
    const user = oneIdentifier(parseQuery(userIdentifierQuery, req.query));
    sendSuccess(res, await sbtsOf(deps.ch, user));
  });
}

/**
 * A profile's SBTs are those of all its addresses; an address of no profile still has its own.
 * Most users asked for hold some, so the profile is looked up on its own only when none came.
 */
async function sbtsOf(ch: ClickHouse, user: UserIdentifier): Promise<Sbt[]> {
  const held = await sbtsOfIdentifier(ch, user.kind, user.value);
  if (held.length > 0 || (await profileIdBy(ch, user.kind, user.value))) return held;
  throw new ApiError('userNotFound', user.kind === 'address' ? 'user not found: no profile has this address and it holds no SBT' : undefined);
}
