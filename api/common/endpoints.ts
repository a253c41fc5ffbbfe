/**
 * The API's endpoints, each with the name its rate limit is counted under, and the
 * middlewares that stand before every endpoint's handler (its `Guards`).
 */
import type { RequestHandler } from 'express';

export const ENDPOINTS = [
  ['get', '/api/v1/recommend', 'recommend'],
  ['post', '/api/v1/auth', 'auth'],
  ['get', '/api/v1/auth/nonce', 'auth-nonce'],
  ['post', '/api/v1/auth/address-token', 'auth-address-token'],
  ['get', '/api/v1/sbt/list', 'sbt-list'],
  ['get', '/api/v1/tag', 'tag'],
] as const;

export type EndpointName = (typeof ENDPOINTS)[number][2];

/**
 * The middlewares before an endpoint's handler: the ApiKey and its rate limit, the caller's
 * unified token where the endpoint needs one, and the JSON body parser for POST. Routes
 * register them on their own path, so a request meets only its own endpoint's.
 */
export type Guards = (endpoint: EndpointName) => RequestHandler[];
