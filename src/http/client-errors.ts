import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errors, PROBLEM_CONTENT_TYPE, toProblem, type AppError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER } from './use-request-logging.js';

/**
 * Requests Node's HTTP parser refuses before the app sees them (headers over
 * --max-http-header-size, a malformed request line or header, a timeout) get
 * the contract's problem+json like every other refusal, instead of Node's
 * bare status line. There is no request object: the whole response is
 * written on the socket, which then closes. Nothing of the request is echoed
 * (it may hold credentials and cannot be trusted to be text).
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection, or one with a response pending (pipelined), can take no answer of its own.
    if (err.code === 'ECONNRESET' || !socket.writable || responsePending(socket)) {
      socket.destroy();
      return;
    }
    const error = refusalFor(err.code, maxHeaderSize);
    const requestId = randomUUID();
    logger.warn({ requestId, status: error.status, parserCode: err.code }, 'request refused by the HTTP parser');
    // What the client still sends is read and dropped: closing on unread data would reset
    // the connection, and the client could lose the answer.
    socket.resume();
    socket.end(problemResponse(error, requestId));
    // The client reads the answer and closes; one that does not is cut off.
    const cutOff = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    socket.once('close', () => clearTimeout(cutOff));
  });
}

/** How long a refused connection stays open for its client to read the answer and close. */
const CLOSE_GRACE_MS = 5_000;

/** Node's own status for each parser error (see its http server's socketOnError), as a catalogue error. */
function refusalFor(code: string | undefined, limitBytes: number): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge(limitBytes);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.chunkExtensionsTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      return errors.malformedRequest();
  }
}

/** A complete HTTP/1.1 response: status line, the headers every answer carries, the problem body. */
function problemResponse(error: AppError, requestId: string): string {
  const body = JSON.stringify(toProblem(error, { requestId }));
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    `${REQUEST_ID_HEADER}: ${requestId}`,
    'Cache-Control: no-store',
    'Connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Whether a response of an earlier request on this socket is still to be
 * written (Node attaches it as _httpMessage). A response not begun whose
 * request is still arriving is this request's own (its body timed out or
 * broke): it is answered here, as Node itself does.
 */
function responsePending(socket: Duplex): boolean {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  return pending !== undefined && (pending.headersSent || pending.req.complete);
}
