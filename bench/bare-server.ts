/**
 * The baseline of `npm run bench:api`, in a child process of its own
 * (bench/server-process.ts): Express with the API's response settings and one route
 * answering the page the bench sends it, a real recommend page, so that both servers
 * encode and send the same bytes. It runs on the API's own HTTP server construction
 * (api/http-server.ts), so the ratio measures the API's work, not how Express is hosted.
 */
import type { Server } from 'node:http';
import express from 'express';
import { createExpressServer } from '../api/http-server.ts';
import { serveUnderBench } from './server-process-child.ts';

export interface BareServerOptions {
  page: unknown;
}

serveUnderBench(async (options) => {
  const { page } = options as BareServerOptions;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/', (_req, res) => {
    res.json(page);
  });
  const server = createExpressServer(app).listen(0, '127.0.0.1');
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
