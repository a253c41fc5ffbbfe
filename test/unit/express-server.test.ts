/**
 * api/server/http-server.ts: the HTTP server the API (and bench:api's baseline) runs Express on,
 * over real loopback HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressServer } from '../../api/server/http-server.ts';

const app = express();
app.set('etag', false);
app.get('/echo', (req, res) => {
  res.locals.seen = req.query.q;
  res.json({ q: req.query.q, path: req.path, fromLocals: res.locals.seen });
});
app.post('/body', express.json(), (req, res) => res.status(201).json(req.body));

/** Each request's and response's prototype as Node hands them over, before Express runs. */
const bornWith: { request: object | null; response: object | null; nodeClasses: boolean }[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = createExpressServer(app);
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    bornWith.push({
      request: Object.getPrototypeOf(req),
      response: Object.getPrototypeOf(res),
      nodeClasses: req instanceof http.IncomingMessage && res instanceof http.ServerResponse,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the Express server', () => {
  it("creates every request and response with the app's prototypes, so Express has none to change", async () => {
    bornWith.length = 0;
    await fetch(`${base}/echo?q=1`);
    await fetch(`${base}/echo?q=2`);
    expect(bornWith).toHaveLength(2);
    for (const born of bornWith) {
      expect(born.request).toBe(app.request);
      expect(born.response).toBe(app.response);
    }
  });

  it("keeps them instances of Node's IncomingMessage and ServerResponse", async () => {
    bornWith.length = 0;
    await fetch(`${base}/echo`);
    expect(bornWith[0]?.nodeClasses).toBe(true);
  });

  it('serves the app as app.listen would: query, locals, JSON bodies, status, 404, HEAD', async () => {
    const echo = await fetch(`${base}/echo?q=a%20b`);
    expect(echo.status).toBe(200);
    expect(echo.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await echo.json()).toEqual({ q: 'a b', path: '/echo', fromLocals: 'a b' });

    const posted = await fetch(`${base}/body`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":[1,2]}' });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ x: [1, 2] });

    expect((await fetch(`${base}/nowhere`)).status).toBe(404);

    const head = await fetch(`${base}/echo?q=1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers several requests on one keep-alive connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    try {
      for (const q of ['1', '2', '3']) {
        const body = await new Promise<string>((resolve, reject) => {
          http
            .get(`${base}/echo?q=${q}`, { agent }, (res) => {
              sockets.add(res.socket);
              let text = '';
              res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
            })
            .on('error', reject);
        });
        expect(JSON.parse(body)).toMatchObject({ q });
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
