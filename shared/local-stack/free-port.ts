import { createServer, type Server } from 'node:net';

/** A TCP port on 127.0.0.1 that the OS reported free a moment ago. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * Several distinct free ports. All listeners stay open until every port is known,
 * so the OS cannot hand out the same port twice within one call.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnAnyPort());
    return servers.map(boundPort);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

function listenOnAnyPort(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function boundPort(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('listener has no TCP port');
  return address.port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
