/**
 * The baseline of `npm run bench:api`, in a child process of its own
 * (bench/server-process.ts): Express with the API's response settings and one route
 * answering the page the bench sends it, a real recommend page, so that both servers
 * encode and send the same bytes.
 *
 * Two ways to host it: `listen`, Express as it is usually served (`app.listen`), the
 * baseline of the ratio target; and `api-server`, on the HTTP server the API runs on
 * (api/server/http-server.ts), which spares Express its per-request prototype change, to show how
 * much of the API's margin over the first comes from that. Both run with the API's V8 flags
 * (bench/server-process.ts).
 */
import type { Server } from 'node:http';
import express from 'express';
import { createExpressServer } from '../api/server/http-server.ts';
import { serveUnderBench } from './server-process.ts';

export interface BareServerOptions {
  page: unknown;
  hosting: 'listen' | 'api-server';
}

serveUnderBench(async (options) => {
  const { page, hosting } = options as BareServerOptions;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/', (_req, res) => {
    res.json(page);
  });
  const server = hosting === 'api-server' ? createExpressServer(app).listen(0, '127.0.0.1') : app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, close: () => closeServer(server) };
});

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
