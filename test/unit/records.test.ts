import { describe, it, expect } from 'vitest';
import type { z } from 'zod';
import {
  address,
  blockNumber,
  decimalString,
  list,
  optionalAddress,
  optionalUrl,
  socialHandle,
  timestamp,
  txHash,
  int64String,
} from '../../shared/records/fields.ts';
import { transactionRecord, tokenTransferRecord } from '../../shared/records/chain-activity.ts';
import { followRecord, socialFollowRecord } from '../../shared/records/follows.ts';
import { inviteRecord } from '../../shared/records/invites.ts';
import { isKindName, kindNames, recordKinds } from '../../shared/records/kinds.ts';
import { nftTransferRecord } from '../../shared/records/nfts.ts';
import { profileRecord } from '../../shared/records/profiles.ts';
import { sbtIssuerRecord } from '../../shared/records/sbts.ts';

const ADDR = '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff';
const ADDR_MIXED = '0x3960A3649aa1E985DED1e21cf8d08CFdabbe16FF';
const HASH = '0x24f2f8d3bda61a50804cb7722a6e7aff145b4266e7431ae2727beccae0d7d72d';

/** The schema's output for input, failing the test with zod's message if it is rejected. */
function accept<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new Error(`rejected ${JSON.stringify(input)}: ${result.error.message}`);
  return result.data;
}

/** The issues of a rejected input as "path: message" lines (fails if it is accepted). */
function reject(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`accepted ${JSON.stringify(input)} as ${JSON.stringify(result.data)}`);
  return result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('record kinds', () => {
  it('lists every kind under the name it is registered with', () => {
    expect(kindNames).toEqual([
      'profiles',
      'social-follows',
      'follows',
      'transactions',
      'token-transfers',
      'address-labels',
      'nft-transfers',
      'nft-collections',
      'sbt-mints',
      'sbt-issuers',
      'invites',
    ]);
    for (const name of kindNames) expect(recordKinds[name].name).toBe(name);
  });

  it('isKindName accepts kind names only, not inherited properties', () => {
    expect(isKindName('profiles')).toBe(true);
    expect(isKindName('nft-transfers')).toBe(true);
    expect(isKindName('nft_transfers')).toBe(false);
    expect(isKindName('toString')).toBe(false);
  });

  it.each(kindNames)("the %s example passes its kind's schema", (name) => {
    const kind = recordKinds[name];
    const row = accept(kind.schema, kind.example) as Record<string, unknown>;
    // Stored rows use snake_case column names.
    for (const column of Object.keys(row)) expect(column).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('the transactions example becomes the stored row exactly', () => {
    expect(accept(recordKinds.transactions.schema, recordKinds.transactions.example)).toEqual({
      chain_id: 1,
      hash: '0xe6e3adc26100e603097ad9e0dfe9b097f3a8be17c04d541805220a5f30b304ef',
      block_number: 3300400,
      block_time: 1488775107,
      from_address: '0x593c97a298bacbdfcf1a820772bdb2fd564a7a1b',
      to_address: '0x08f054e89b7f2b921058dcde4e1ce746934394a6',
      value: '1000000000000000000',
    });
  });
});

describe('fields: address', () => {
  it('accepts any case and stores lowercase', () => {
    expect(accept(address, ADDR_MIXED)).toBe(ADDR);
    expect(accept(address, ADDR.toUpperCase().replace('0X', '0x'))).toBe(ADDR);
    expect(accept(address, ` ${ADDR} `)).toBe(ADDR);
  });

  it.each([
    ['39 hex digits', '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16f'],
    ['41 hex digits', '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16ff0'],
    ['a non-hex digit', '0x3960a3649aa1e985ded1e21cf8d08cfdabbe16fg'],
    ['no 0x prefix', '3960a3649aa1e985ded1e21cf8d08cfdabbe16ff00'],
    ['an ENS name', 'vitalik.eth'],
    ['nothing', ''],
  ])('rejects an address with %s', (_, value) => {
    expect(reject(address, value)).toEqual([': must be a 0x-prefixed 20-byte hex address']);
  });

  it('optionalAddress stores a blank or missing address as an empty string', () => {
    expect(accept(optionalAddress, '')).toBe('');
    expect(accept(optionalAddress, undefined)).toBe('');
    expect(accept(optionalAddress, null)).toBe('');
    expect(accept(optionalAddress, ADDR_MIXED)).toBe(ADDR);
    reject(optionalAddress, '0x12');
  });

  it('txHash needs 64 hex digits and is stored lowercase', () => {
    expect(accept(txHash, HASH.toUpperCase().replace('0X', '0x'))).toBe(HASH);
    reject(txHash, HASH.slice(0, -1));
    reject(txHash, ADDR);
  });
});

describe('fields: decimal strings', () => {
  it.each([
    ['0', '0'],
    ['1000000000000000000000000', '1000000000000000000000000'],
    [' 42 ', '42'],
  ])('accepts %j exactly as %j', (input, stored) => {
    expect(accept(decimalString, input)).toBe(stored);
  });

  it('accepts a safe integer number and a bigint, as decimal strings', () => {
    expect(accept(decimalString, 1234)).toBe('1234');
    expect(accept(decimalString, 2n ** 80n)).toBe('1208925819614629174706176');
  });

  it.each([['01'], ['-1'], ['1.5'], ['1e21'], ['0x10'], [''], ['12 34']])('rejects the string %j', (input) => {
    expect(reject(decimalString, input)).toEqual([': must be a non-negative decimal integer without leading zeros']);
  });

  it.each([[1e21], [2 ** 53], [1.5]])('rejects the inexact number %d', (input) => {
    expect(reject(decimalString, input)).toEqual([
      ': must be an exact integer; send big values as decimal strings',
    ]);
  });

  it('rejects a negative number', () => {
    reject(decimalString, -1);
  });

  it('int64String accepts 2^63-1 and rejects 2^63 (holdings are summed as Int64)', () => {
    expect(accept(int64String, '9223372036854775807')).toBe('9223372036854775807');
    expect(reject(int64String, '9223372036854775808')).toEqual([': must be at most 9223372036854775807']);
  });
});

describe('fields: integers', () => {
  it('accepts a block number as a number or a digit string', () => {
    expect(accept(blockNumber, 3300400)).toBe(3300400);
    expect(accept(blockNumber, '3300400')).toBe(3300400);
    expect(accept(blockNumber, 0)).toBe(0);
  });

  it.each([[''], ['  '], [null], [undefined], ['abc'], [-1], [1.5]])('rejects the block number %j (never reads it as 0)', (input) => {
    reject(blockNumber, input);
  });
});

describe('fields: timestamps', () => {
  it.each([
    ['ISO 8601 with Z', '2024-05-01T12:00:00Z', 1714564800],
    ['ISO 8601 with an offset', '2024-05-01T12:00:00+02:00', 1714557600],
    ['ISO 8601 with milliseconds', '2024-05-01T12:00:00.999Z', 1714564800],
    ['ISO 8601 without a zone, read as UTC', '2024-05-01T12:00:00', 1714564800],
    ['a date-time with a space, read as UTC', '2024-05-01 12:00:00', 1714564800],
    ['a date alone, read as UTC midnight', '2024-05-01', 1714521600],
    ['unix seconds as a number', 1488775107, 1488775107],
    ['unix seconds as a digit string', '1488775107', 1488775107],
    ['13-digit unix milliseconds, floored to seconds', '1714564800999', 1714564800],
    ['13-digit unix milliseconds as a number', 1714564800999, 1714564800],
    ['zero', 0, 0],
  ])('reads %s', (_, input, seconds) => {
    expect(accept(timestamp, input)).toBe(seconds);
  });

  it.each([
    ['text that is not a date', 'yesterday'],
    ['a negative number', -1],
    ['a fractional number', 1488775107.5],
    ['a time past 2106 (beyond DateTime)', 4_294_967_296],
    ['a 14-digit string', '17145648009990'],
    ['an impossible date', '2024-13-45T00:00:00Z'],
    ['an empty string', ''],
  ])('rejects %s', (_, input) => {
    expect(reject(timestamp, input)).toEqual([': must be an ISO 8601 date-time or unix seconds']);
  });
});

describe('fields: social handles, urls and lists', () => {
  it('stores handles lowercase without a leading @', () => {
    expect(accept(socialHandle, '@Alice_Eth')).toBe('alice_eth');
    expect(accept(socialHandle, ' vitalik.eth ')).toBe('vitalik.eth');
  });

  it.each([['alice eth'], ['@'], [''], ['@@alice'], ['a'.repeat(65)], ['alice/bob']])('rejects the handle %j', (input) => {
    reject(socialHandle, input);
  });

  it('accepts http(s) and ipfs URLs or nothing', () => {
    expect(accept(optionalUrl, 'https://example.com/a.png')).toBe('https://example.com/a.png');
    expect(accept(optionalUrl, 'ipfs://bafy')).toBe('ipfs://bafy');
    expect(accept(optionalUrl, undefined)).toBe('');
    expect(reject(optionalUrl, 'javascript:alert(1)')).toEqual([': must be an http(s):// or ipfs:// URL']);
  });

  it('reads a list from a JSON array or a |-separated cell, blank cell = empty list', () => {
    const words = list(socialHandle, 3);
    expect(accept(words, 'a| B |c')).toEqual(['a', 'b', 'c']);
    expect(accept(words, ['x'])).toEqual(['x']);
    expect(accept(words, '')).toEqual([]);
    expect(accept(words, undefined)).toEqual([]);
    reject(words, 'a|b|c|d');
  });
});

describe('profiles', () => {
  const base = { profileId: 'p_1', updatedAt: '2024-05-01T12:00:00Z' };
  const A = '0x000000000000000000000000000000000000000a';
  const B = '0x000000000000000000000000000000000000000b';

  it('deduplicates and sorts addresses after lowercasing them', () => {
    const row = accept(profileRecord, { ...base, addresses: [B, A.toUpperCase().replace('0X', '0x'), A] });
    expect(row.addresses).toEqual([A, B]);
  });

  it('reads addresses from a |-separated CSV cell', () => {
    expect(accept(profileRecord, { ...base, addresses: `${B}|${A}` }).addresses).toEqual([A, B]);
  });

  it('stores a blank socialUsername, gamePlatformId, name and avatar as empty strings', () => {
    const row = accept(profileRecord, { ...base, socialUsername: '', gamePlatformId: '' });
    expect(row).toEqual({
      profile_id: 'p_1',
      name: '',
      avatar: '',
      addresses: [],
      social_username: '',
      game_platform_id: '',
      updated_at: 1714564800,
    });
  });

  it('stores the social username lowercase without @', () => {
    expect(accept(profileRecord, { ...base, socialUsername: '@Alice' }).social_username).toBe('alice');
  });

  it('rejects a bad address in the list, naming its position', () => {
    expect(reject(profileRecord, { ...base, addresses: [A, '0x12'] })).toEqual([
      'addresses.1: must be a 0x-prefixed 20-byte hex address',
    ]);
  });

  it('rejects more than 32 addresses', () => {
    const many = Array.from({ length: 33 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    reject(profileRecord, { ...base, addresses: many });
  });

  it('defaults updated_at to the time of ingestion', () => {
    const before = Math.floor(Date.now() / 1000);
    const row = accept(profileRecord, { profileId: 'p_1' });
    expect(row.updated_at).toBeGreaterThanOrEqual(before);
    expect(row.updated_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('rejects a profileId with a space', () => {
    reject(profileRecord, { profileId: 'p 1' });
  });
});

describe('follows', () => {
  const MAY_1 = '2024-05-01T12:00:00Z'; // 1714564800
  const MAY_2 = '2024-05-02T08:30:00Z'; // 1714638600
  const JUNE_1 = '2024-06-01T10:00:00Z'; // 1717236000

  it('is active without unfollowedAt, updated at followedAt', () => {
    expect(accept(socialFollowRecord, { follower: '@Alice', followee: 'Bob', followedAt: MAY_1 })).toEqual({
      follower: 'alice',
      followee: 'bob',
      followed_at: 1714564800,
      unfollowed_at: null,
      active: 1,
      updated_at: 1714564800,
    });
  });

  it('is inactive when unfollowedAt is after followedAt, updated at unfollowedAt', () => {
    const row = accept(followRecord, {
      followerProfileId: 'p_a',
      followeeProfileId: 'p_b',
      followedAt: MAY_2,
      unfollowedAt: JUNE_1,
    });
    expect(row).toEqual({
      follower_profile_id: 'p_a',
      followee_profile_id: 'p_b',
      followed_at: 1714638600,
      unfollowed_at: 1717236000,
      active: 0,
      updated_at: 1717236000,
    });
  });

  it('is active again when followedAt is after unfollowedAt, updated at followedAt', () => {
    const row = accept(socialFollowRecord, { follower: 'a', followee: 'b', followedAt: JUNE_1, unfollowedAt: MAY_2 });
    expect(row.active).toBe(1);
    expect(row.unfollowed_at).toBe(1714638600);
    expect(row.updated_at).toBe(1717236000);
  });

  it('treats a blank unfollowedAt (CSV) as no unfollow', () => {
    const row = accept(socialFollowRecord, { follower: 'a', followee: 'b', followedAt: MAY_1, unfollowedAt: '' });
    expect(row.active).toBe(1);
    expect(row.unfollowed_at).toBeNull();
  });

  it('rejects a self-follow, by handle in any case and by profile id', () => {
    expect(reject(socialFollowRecord, { follower: 'Alice', followee: '@alice', followedAt: MAY_1 })).toEqual([
      'followee: a handle cannot follow itself',
    ]);
    expect(
      reject(followRecord, { followerProfileId: 'p_a', followeeProfileId: 'p_a', followedAt: MAY_1 }),
    ).toEqual(['followeeProfileId: a profile cannot follow itself']);
  });

  it('rejects a follow without followedAt', () => {
    reject(socialFollowRecord, { follower: 'a', followee: 'b' });
  });
});

describe('invites', () => {
  it('stores a missing invite code as an empty string', () => {
    expect(
      accept(inviteRecord, { inviteeProfileId: 'p_b', inviterProfileId: 'p_a', invitedAt: '1714564800' }),
    ).toEqual({ invitee_profile_id: 'p_b', inviter_profile_id: 'p_a', invite_code: '', invited_at: 1714564800 });
  });

  it('rejects a profile inviting itself', () => {
    expect(reject(inviteRecord, { inviteeProfileId: 'p_a', inviterProfileId: 'p_a', invitedAt: 1 })).toEqual([
      'inviterProfileId: a profile cannot invite itself',
    ]);
  });
});

describe('chain activity', () => {
  const tx = {
    chainId: '1',
    hash: HASH.toUpperCase().replace('0X', '0x'),
    blockNumber: '3914495',
    blockTime: '2017-06-23T19:45:54Z',
    from: ADDR_MIXED,
    to: '',
    value: '0',
  };

  it('stores a contract creation (no to) with an empty to_address', () => {
    const row = accept(transactionRecord, tx);
    expect(row.to_address).toBe('');
    expect(row.hash).toBe(HASH);
    expect(row.from_address).toBe(ADDR);
    expect(row.chain_id).toBe(1);
    expect(row.block_number).toBe(3914495);
  });

  it('rejects chain id 0', () => {
    expect(reject(transactionRecord, { ...tx, chainId: 0 })[0]).toMatch(/^chainId: /);
  });

  it.each([[''], [null]])('rejects a JSON blockNumber of %j instead of reading it as 0', (value) => {
    expect(reject(transactionRecord, { ...tx, blockNumber: value }).map((i) => i.split(':')[0])).toEqual([
      'blockNumber',
    ]);
  });

  it('token transfers store a missing block time as null', () => {
    const row = accept(tokenTransferRecord, {
      chainId: 1,
      contract: ADDR,
      from: ADDR,
      to: ADDR,
      value: '5',
      txHash: HASH,
      logIndex: '3',
      blockNumber: 1,
    });
    expect(row.block_time).toBeNull();
    expect(row.log_index).toBe(3);
  });
});

describe('nft transfers', () => {
  const transfer = { ...recordKinds['nft-transfers'].example };

  it('rejects an ERC-721 transfer of amount 2, on the amount field', () => {
    expect(reject(nftTransferRecord, { ...transfer, standard: 'ERC-721', amount: '2' })).toEqual([
      'amount: an ERC-721 transfer moves exactly one token',
    ]);
  });

  it.each([[undefined], [''], [null]])('defaults an ERC-1155 amount of %j to 1', (amount) => {
    const row = accept(nftTransferRecord, { ...transfer, standard: 'ERC-1155', amount });
    expect(row.amount).toBe('1');
  });

  it('accepts an ERC-1155 amount of 2^63-1 and rejects 2^63', () => {
    expect(accept(nftTransferRecord, { ...transfer, standard: 'ERC-1155', amount: '9223372036854775807' }).amount).toBe(
      '9223372036854775807',
    );
    expect(reject(nftTransferRecord, { ...transfer, standard: 'ERC-1155', amount: '9223372036854775808' })).toEqual([
      'amount: must be at most 9223372036854775807',
    ]);
  });

  it('rejects an unknown standard', () => {
    expect(reject(nftTransferRecord, { ...transfer, standard: 'ERC-20' })[0]).toMatch(/^standard: /);
  });

  it('keeps a token id beyond 2^64 exactly', () => {
    const tokenId = '115792089237316195423570985008687907853269984665640564039457584007913129639935';
    expect(accept(nftTransferRecord, { ...transfer, tokenId }).token_id).toBe(tokenId);
  });
});

describe('sbt issuers', () => {
  const issuer = { chainId: 1, contract: ADDR, issuer: 'Guild', updatedAt: 1714564800 };

  it("reads categories from 'GameFi|DeFi'", () => {
    expect(accept(sbtIssuerRecord, { ...issuer, categories: 'GameFi|DeFi' }).categories).toEqual(['GameFi', 'DeFi']);
  });

  it('drops repeated categories, keeping the first order', () => {
    expect(accept(sbtIssuerRecord, { ...issuer, categories: ['DAO', 'DeFi', 'DAO'] }).categories).toEqual([
      'DAO',
      'DeFi',
    ]);
  });

  it('rejects a category that is not a short label', () => {
    expect(reject(sbtIssuerRecord, { ...issuer, categories: 'GameFi|1nvalid' })).toEqual([
      'categories.1: must be a short label such as GameFi, DeFi or DAO',
    ]);
  });

  it('rejects an empty issuer', () => {
    expect(reject(sbtIssuerRecord, { ...issuer, issuer: ' ', categories: [] })[0]).toMatch(/^issuer: /);
  });
});

describe('fields: forms seen in real exports', () => {
  it('reads BigQuery ethereum-etl times such as "2017-03-06 04:38:27 UTC" as UTC', () => {
    expect(accept(timestamp, '2017-03-06 04:38:27 UTC')).toBe(1488775107);
  });

  it.each([['0x10'], ['1e3'], ['12.0'], ['+5']])('rejects the block number %j instead of reading it as a number', (text) => {
    expect(reject(blockNumber, text)).toEqual([': must be an integer']);
  });
});
