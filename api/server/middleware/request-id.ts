/** Every request carries an id: the caller's X-Request-Id when sensible, else a new one; echoed back. */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('X-Request-Id');
  const id = given && ACCEPTABLE.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
};
