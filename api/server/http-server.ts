/**
 * The HTTP server an Express app runs on, built so that each request and response is born
 * with the app's prototypes (`app.request`, `app.response`).
 *
 * Why: Express 5's `app.handle` calls `Object.setPrototypeOf(req, app.request)` (and the same
 * for `res`) on every request. Node creates them as plain `IncomingMessage`/`ServerResponse`,
 * so with `app.listen` that call changes each one's prototype, and V8 then keeps the pair and
 * what hangs off it alive through two scavenges: every request's objects reach the old
 * generation and are left for mark-compacts to collect (bench:api, 2026-11-25: "Express's
 * per-request prototype change" in docs/benchmarks.md's git history; expressjs/express#5998,
 * nodejs/node#37457). Created with
 * the right prototype, Express's call finds nothing to change.
 *
 * The app must not mount sub-apps (`app.use(otherExpressApp)`, or an app as a router's
 * handler): inside one, Express swaps the prototypes again. The API has none, and
 * test/e2e/api.test.ts ("the HTTP server") fails if it gets one.
 */
import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

export function createExpressServer(app: Express): Server {
  return createServer({ IncomingMessage: requestConstructor(app), ServerResponse: responseConstructor(app) }, app);
}

// Plain functions rather than classes: a class's `prototype` cannot be replaced, and the
// objects' prototype must be exactly the app's. Node's own constructors are plain
// functions, so calling them on `this` initializes the object as `new` would.
function requestConstructor(app: Express): typeof IncomingMessage {
  function Request(this: IncomingMessage, socket: Socket): void {
    Reflect.apply(IncomingMessage, this, [socket]);
  }
  Request.prototype = app.request;
  return Request as unknown as typeof IncomingMessage;
}

function responseConstructor(app: Express): typeof ServerResponse {
  function Response(this: ServerResponse, req: IncomingMessage, options?: unknown): void {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  Response.prototype = app.response;
  return Response as unknown as typeof ServerResponse;
}
