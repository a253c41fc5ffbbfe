/**
 * Requests Node's HTTP parser refuses (an unknown method, a malformed request line, raw
 * non-ASCII bytes in the path, a request line and headers over 16 KB) never reach Express:
 * Node would answer them with an empty 400 or 431. They get the envelope instead, with a
 * request id, and the connection closes (the parser cannot read on past them).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../shared/logger.ts';
import { ApiError } from '../common/envelope.ts';

export function answerRefusedRequests(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away, or one too slow to send its headers: nobody to answer.
    if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refused = error.code === 'HPE_HEADER_OVERFLOW' ? new ApiError('headersTooLarge') : new ApiError('malformedRequest');
    const requestId = randomUUID();
    const body = JSON.stringify(refused.envelope());
    logger.info({ requestId, status: refused.status, parserError: error.code }, 'request refused by the HTTP parser');
    socket.end(
      `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
