/**
 * The paced load generator's HTTP/1.1 client: keep-alive sockets, each carrying one request
 * at a time, every request serialized once up front, and an answer read only as far as its
 * status line and Content-Length (every answer of Express's res.json and of the API's
 * envelope carries one; anything else fails the request loudly).
 *
 * Why not node:http's client: on this 2-core machine the generator shares the cores with the
 * servers it measures, and node:http spends several times more CPU and allocates more per
 * request (an IncomingMessage, a ClientRequest, header objects), so it took more of the
 * machine from the servers and stalled more often in its own GC; both showed up in the very
 * latencies it measured.
 */
import net from 'node:net';

export interface RawRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string | string[] | number | undefined>;
}

export interface Answer {
  /** The HTTP status, or 0 when the request failed (socket error, malformed answer). */
  status: number;
}

/** Serializes a request once: the bytes written for every use of it. */
export function serializeRequest(host: string, request: RawRequest): Buffer {
  const lines = [`${request.method ?? 'GET'} ${request.path ?? '/'} HTTP/1.1`, `Host: ${host}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** One keep-alive connection; `send` may be called again once the previous answer came. */
export class RawConnection {
  private socket: net.Socket | undefined;
  private pending: ((answer: Answer) => void) | undefined;
  private received: Buffer[] = [];
  private receivedBytes = 0;
  private headerBytes = -1;
  private bodyBytes = 0;
  private status = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  get busy(): boolean {
    return this.pending !== undefined;
  }

  send(request: Buffer, done: (answer: Answer) => void): void {
    if (this.pending) throw new Error('a raw connection carries one request at a time');
    this.pending = done;
    this.connected().write(request);
  }

  /** Opens the socket ahead of the first request, so that no measured request pays for it. */
  connect(): Promise<void> {
    const socket = this.connected();
    if (!socket.connecting) return Promise.resolve();
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connected(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // A socket lost mid-request fails that request; the next request opens a new one.
    const lost = () => {
      if (this.socket === socket) this.socket = undefined;
      this.finish(0);
    };
    socket.on('error', lost);
    socket.on('close', lost);
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    if (this.headerBytes < 0) {
      const all = this.received.length === 1 ? chunk : Buffer.concat(this.received);
      this.received = [all];
      const end = all.indexOf(HEADER_END);
      if (end < 0) return;
      const head = all.toString('latin1', 0, end);
      const length = CONTENT_LENGTH.exec(head);
      this.status = Number(head.slice(9, 12));
      if (!head.startsWith('HTTP/1.1 ') || !length || !Number.isInteger(this.status)) {
        this.close();
        return this.finish(0);
      }
      this.headerBytes = end + HEADER_END.length;
      this.bodyBytes = Number(length[1]);
    }
    if (this.receivedBytes >= this.headerBytes + this.bodyBytes) this.finish(this.status);
  }

  private finish(status: number): void {
    const done = this.pending;
    this.pending = undefined;
    this.received = [];
    this.receivedBytes = 0;
    this.headerBytes = -1;
    this.bodyBytes = 0;
    done?.({ status });
  }
}
