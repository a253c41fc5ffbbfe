/**
 * bench:api's open-loop load generator (bench/paced-load.ts) and its raw HTTP/1.1 client
 * (bench/raw-http-client.ts), against a real HTTP server on a loopback port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pacedLoad } from '../../bench/paced-load.ts';
import { RawConnection, serializeRequest } from '../../bench/raw-http-client.ts';

let server: http.Server;
let url: string;
const seen: { path: string; apiKey: string | undefined; connectionsBefore: number }[] = [];
let connections = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', apiKey: req.headers.apikey as string | undefined, connectionsBefore: connections });
    if (req.url === '/missing') return void res.writeHead(404, { 'Content-Length': 2 }).end('no');
    if (req.url === '/stall') {
      const until = Date.now() + 150;
      while (Date.now() < until);
    }
    if (req.url === '/split') {
      // The head, then the body in two parts, a turn apart each.
      res.writeHead(200, { 'Content-Length': 70_000 });
      res.flushHeaders();
      setTimeout(() => res.write('a'.repeat(35_000)), 5);
      setTimeout(() => res.end('b'.repeat(35_000)), 10);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 }).end('{}');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function ask(connection: RawConnection, path: string): Promise<number> {
  return new Promise((resolve) => connection.send(serializeRequest('127.0.0.1', { path }), ({ status }) => resolve(status)));
}

describe('the raw HTTP client', () => {
  it('reads an answer whose body arrives in parts, then carries the next request on the same socket', async () => {
    const connection = new RawConnection('127.0.0.1', Number(new URL(url).port));
    try {
      expect(await ask(connection, '/split')).toBe(200);
      expect(await ask(connection, '/missing')).toBe(404);
      expect(await ask(connection, '/')).toBe(200);
    } finally {
      connection.close();
    }
  });

  it('fails a request, with status 0, when nothing listens', async () => {
    const idle = http.createServer();
    await new Promise<void>((resolve) => idle.listen(0, '127.0.0.1', resolve));
    const port = (idle.address() as AddressInfo).port;
    await new Promise((resolve) => idle.close(resolve));
    const connection = new RawConnection('127.0.0.1', port);
    expect(await ask(connection, '/')).toBe(0);
  });
});

describe('the paced load generator', () => {
  it('sends rate x seconds requests, cycling through them with their headers, and counts the answers that were not 2xx', async () => {
    seen.length = 0;
    const result = await pacedLoad({
      url,
      requests: [{ path: '/', headers: { ApiKey: 'k1' } }, { path: '/missing' }],
      rate: 200,
      seconds: 1,
      sockets: 4,
    });
    expect(result.sent).toBe(200);
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(100);
    expect(seen).toHaveLength(200);
    expect(seen.filter((r) => r.path === '/' && r.apiKey === 'k1')).toHaveLength(100);
    expect(seen.filter((r) => r.path === '/missing' && r.apiKey === undefined)).toHaveLength(100);
    expect(result.latency.p50).toBeGreaterThan(0);
  });

  it('opens all its sockets before the first request is due, so that no measured request waits for a connection', async () => {
    seen.length = 0;
    const before = connections;
    const result = await pacedLoad({ url, requests: [{ path: '/' }], rate: 1000, seconds: 0.05, sockets: 6 });
    expect(result.errors).toBe(0);
    expect(seen[0]!.connectionsBefore - before).toBe(6);
    expect(connections - before).toBe(6);
  });

  it('charges a stall to every request it delayed, counted from when each was due, and names the stretch', async () => {
    const result = await pacedLoad({
      url,
      // One stalling request in every 100, at 200/s: a 150 ms stall every half second.
      requests: Array.from({ length: 100 }, (_, i) => ({ path: i === 50 ? '/stall' : '/' })),
      rate: 200,
      seconds: 1,
      sockets: 8,
      slowMs: 20,
    });
    expect(result.errors).toBe(0);
    expect(result.latency.max).toBeGreaterThanOrEqual(140);
    // The ~30 requests due during each stall waited for it.
    expect(result.latency.p90).toBeGreaterThan(20);
    const worst = result.slowestStretches.toSorted((a, b) => b.maxMs - a.maxMs)[0]!;
    expect(worst.slow).toBeGreaterThan(0);
    // Request 50 is due at 0.25 s, request 150 at 0.75 s.
    expect([0.2, 0.3, 0.7, 0.8]).toContain(worst.atSeconds);
  });
});
