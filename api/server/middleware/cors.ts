/**
 * Browsers may call the API directly (a dapp signs in with the user's wallet in the page).
 * Any origin is allowed: the API uses no cookies, so a page can only act with the
 * ApiKey and tokens it explicitly holds; which sites may sign users in is decided by the
 * ApiKey's SIWE domains, not by CORS.
 */
import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = 'ApiKey, Authorization, I-Authorization, Content-Type, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After';

export const cors: RequestHandler = (req, res, next) => {
  res.set('Access-Control-Allow-Origin', '*');
  res.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return next();
  res.set({
    'Access-Control-Allow-Methods': 'GET, POST',
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.status(204).end();
};
