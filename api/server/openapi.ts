/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests,
 * served at /api/v1/openapi.json and rendered at /docs.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { envelopeSchema } from '../common/envelope.ts';
import { addressTokenBody, authBody, nonceResponse, tokenResponse } from '../auth/auth.ts';
import { recommendQuery, recommendResponse } from '../recommend/recommend.ts';
import { sbtListResponse, userIdentifierQuery } from '../sbt/sbt-list.ts';
import { tagQuery, tagResponse } from '../tag/tag.ts';

const errorEnvelope = envelopeSchema(z.null()).meta({ id: 'ErrorEnvelope' });
const errorResponses = Object.fromEntries(
  [
    ['400', 'Invalid parameter (10200-10203) or field not supported (11601)'],
    ['401', 'ApiKey missing or invalid (10120, 10121), token missing, expired or invalid (10100-10105), Sign-In with Ethereum message rejected (10104, 10106-10108)'],
    ['403', 'Domain not allowed for this ApiKey (10122), or the signer is not the user asked about (10123)'],
    ['404', 'User not found (11602)'],
    ['429', 'Rate limited (10110); see RateLimit-* and Retry-After headers'],
    ['500', 'Internal error (10500)'],
    ['503', 'Service unavailable (10503)'],
  ].map(([status, description]) => [status, { description: description!, content: { 'application/json': { schema: errorEnvelope } } }]),
);

function json(schema: z.ZodType, description = 'Success (code "0")') {
  return { description, content: { 'application/json': { schema } } };
}

export function openApiDocument() {
  const registry = new OpenAPIRegistry();
  const apiKey = registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'ApiKey' });
  const bearer = registry.registerComponent('securitySchemes', 'UnifiedToken', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });

  registry.registerPath({
    method: 'get',
    path: '/api/v1/recommend',
    summary: "One page of the caller's recommended users",
    security: [{ [apiKey.name]: [], [bearer.name]: [] }],
    request: { query: recommendQuery },
    responses: { 200: json(recommendResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth',
    summary: 'Exchange an address token (header I-Authorization: Bearer <token>) for a 7-day unified token',
    security: [{ [apiKey.name]: [] }],
    request: {
      headers: z.object({ 'I-Authorization': z.string().meta({ example: 'Bearer eyJhbGciOiJFUzI1NiIs...' }) }),
      body: { content: { 'application/json': { schema: authBody } } },
    },
    responses: { 200: json(tokenResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/auth/nonce',
    summary: 'A single-use nonce for a Sign-In with Ethereum message',
    security: [{ [apiKey.name]: [] }],
    responses: { 200: json(nonceResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/auth/address-token',
    summary: 'A signed Sign-In with Ethereum message, verified in full, for a 10-minute address token',
    security: [{ [apiKey.name]: [] }],
    request: { body: { content: { 'application/json': { schema: addressTokenBody } } } },
    responses: { 200: json(tokenResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sbt/list',
    summary: 'The SBTs a user holds, by exactly one of address, socialUsername, gamePlatformId',
    security: [{ [apiKey.name]: [] }],
    request: { query: userIdentifierQuery },
    responses: { 200: json(sbtListResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/tag',
    summary: "A user's tags, encrypted for that user: exactly one of address, socialUsername, gamePlatformId, plus the user's signed \"Access to User Tag.\" message (docs/tags.md)",
    description:
      'Errors specific to this endpoint: 10104 (message or signature invalid, not valid yet, chain not supported), 10106 (statement), 10107 (expired), 10108 (no expirationTime or longer than allowed), 10122 (domain not allowed for the ApiKey), 10123 (403: the signer is not the user asked about), 11602 (no such user), 10503 (tag encryption not configured).',
    security: [{ [apiKey.name]: [] }],
    request: { query: tagQuery },
    responses: { 200: json(tagResponse), ...errorResponses },
  });
  registry.registerPath({
    method: 'get',
    path: '/.well-known/jwks.json',
    summary: 'Public keys that verify unified tokens (standard JWKS, not an envelope)',
    responses: { 200: json(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), 'JWKS') },
  });
  registry.registerPath({ method: 'get', path: '/healthz', summary: 'The process is up', responses: { 200: json(envelopeSchema(z.object({ status: z.literal('ok') }))) } });
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    summary: 'ClickHouse and Redis are reachable',
    responses: { 200: json(envelopeSchema(z.object({ status: z.literal('ready') }))), 503: errorResponses['503']! },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'soulgraph API',
      version: '1.0.0',
      description: 'Every response is the envelope {code, desc, data}; codes are listed in docs/errors.md.',
    },
    servers: [{ url: '/' }],
  });
}
