/**
 * An HTTP request sent as raw bytes over a new connection, for requests no HTTP client will
 * send (malformed request lines, unknown methods, oversized headers, random bytes).
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends `bytes` to the server at `url` and resolves with its answer once the server closes
 * the connection (send Connection: close), or undefined if it closed without a byte.
 * `halfClose` ends our side at once: for bytes that may never form a whole request.
 */
export function rawRequest(url: string, bytes: string | Buffer, halfClose = false): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      if (chunks.length === 0) return resolve(undefined);
      const answer = Buffer.concat(chunks);
      const split = answer.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = answer.subarray(0, split).toString('latin1').split('\r\n');
      const headers = new Map(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: answer.subarray(split + 4).toString('utf8') });
    });
    if (halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}
