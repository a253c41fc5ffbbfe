import { z } from 'zod';
import { identifier, timestamp } from './fields.ts';
import { defineKind } from './record-kind.ts';

export const inviteRecord = z
  .strictObject({
    inviteeProfileId: identifier,
    inviterProfileId: identifier,
    inviteCode: z.preprocess((v) => v ?? '', z.union([z.literal(''), identifier])),
    invitedAt: timestamp,
  })
  .refine((i) => i.inviteeProfileId !== i.inviterProfileId, {
    message: 'a profile cannot invite itself',
    path: ['inviterProfileId'],
  })
  .transform((i) => ({
    invitee_profile_id: i.inviteeProfileId,
    inviter_profile_id: i.inviterProfileId,
    invite_code: i.inviteCode,
    invited_at: i.invitedAt,
  }));

export const invitesKind = defineKind({
  name: 'invites',
  table: 'invites',
  description: 'Who invited whom (written by the auth endpoint through the pipeline).',
  schema: inviteRecord,
  example: { inviteeProfileId: 'p_0b12ee', inviterProfileId: 'p_7f3a9c', inviteCode: 'WELCOME-7F3A', invitedAt: '2024-05-03T10:00:00Z' },
});
