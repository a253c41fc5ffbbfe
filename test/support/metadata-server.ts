/** A local HTTP server playing token-metadata hosts, good and hostile (chain tests). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetadataServer {
  url: string;
  /** Milliseconds /slow/* waits before answering (tests change it). */
  setSlowMs(ms: number): void;
  close(): Promise<void>;
}

export async function startMetadataServer(): Promise<MetadataServer> {
  let slowMs = 3_000;
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const good = /^\/(?:good|slow)\/([\w-]+)\.json$/.exec(path);
    if (path.startsWith('/slow/')) {
      setTimeout(() => good && json(200, { name: `Slow badge ${good[1]}`, image: `https://img.example/${good[1]}.png` }), slowMs);
      return;
    }
    if (good) return json(200, { name: `Badge ${good[1]}`, image: `ipfs://QmImage${good[1]}`, description: 'a test badge' });
    if (path === '/huge.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      // 4 MB without a Content-Length (chunked): the limit must hold while reading.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const write = () => {
        while (sent < 64) {
          sent++;
          if (!res.write(chunk)) return res.once('drain', write);
        }
        res.end();
      };
      return write();
    }
    if (path === '/not-json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html>hello</html>');
    }
    if (path === '/array.json') return json(200, [1, 2, 3]);
    if (path === '/redirect-private') {
      res.writeHead(302, { location: 'http://10.1.2.3/metadata.json' });
      return res.end();
    }
    if (path === '/redirect-cloud-metadata') {
      res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    }
    if (path === '/redirect-good') {
      res.writeHead(302, { location: '/good/7.json' });
      return res.end();
    }
    if (path === '/redirect-loop') {
      res.writeHead(302, { location: '/redirect-loop' });
      return res.end();
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setSlowMs: (ms) => (slowMs = ms),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
