import { z } from 'zod';
import { identifier, optionalTimestamp, socialHandle, timestamp } from './fields.ts';
import { defineKind } from './record-kind.ts';

/**
 * A follow edge and its latest state. An unfollow is the same edge with `unfollowedAt`;
 * following again later is a record whose `followedAt` is after `unfollowedAt`.
 * The newest event (max of the two times) wins.
 */
function followState(followedAt: number, unfollowedAt: number | undefined) {
  const active = unfollowedAt === undefined || followedAt > unfollowedAt;
  return {
    followed_at: followedAt,
    unfollowed_at: unfollowedAt ?? null,
    active: active ? 1 : 0,
    updated_at: Math.max(followedAt, unfollowedAt ?? 0),
  };
}

export const socialFollowRecord = z
  .strictObject({
    follower: socialHandle,
    followee: socialHandle,
    followedAt: timestamp,
    unfollowedAt: optionalTimestamp,
  })
  .refine((f) => f.follower !== f.followee, { message: 'a handle cannot follow itself', path: ['followee'] })
  .transform((f) => ({ follower: f.follower, followee: f.followee, ...followState(f.followedAt, f.unfollowedAt) }));

export const followRecord = z
  .strictObject({
    followerProfileId: identifier,
    followeeProfileId: identifier,
    followedAt: timestamp,
    unfollowedAt: optionalTimestamp,
  })
  .refine((f) => f.followerProfileId !== f.followeeProfileId, {
    message: 'a profile cannot follow itself',
    path: ['followeeProfileId'],
  })
  .transform((f) => ({
    follower_profile_id: f.followerProfileId,
    followee_profile_id: f.followeeProfileId,
    ...followState(f.followedAt, f.unfollowedAt),
  }));

export const socialFollowsKind = defineKind({
  name: 'social-follows',
  table: 'social_follows',
  description: 'Who follows whom on the social network, by handle, with unfollows.',
  schema: socialFollowRecord,
  example: { follower: 'alice_eth', followee: 'vitalik', followedAt: '2024-05-01T12:00:00Z' },
});

export const followsKind = defineKind({
  name: 'follows',
  table: 'follows',
  description: "Follows inside soulgraph's own app graph, by profileId, with unfollows.",
  schema: followRecord,
  example: {
    followerProfileId: 'p_7f3a9c',
    followeeProfileId: 'p_0b12ee',
    followedAt: '2024-05-02T08:30:00Z',
    unfollowedAt: '2024-06-01T10:00:00Z',
  },
});
