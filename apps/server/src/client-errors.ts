/**
 * Requests Node's HTTP parser refuses before the app sees them (headers or a URL past the size it
 * reads, bytes that are not HTTP, headers still arriving after HEADERS_TIMEOUT_MS) are answered in
 * the JSON error shape every other refusal has, with the status Node would give, and the
 * connection closed. Node's own answer had the status alone, with an empty body.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { HEADERS_TIMEOUT_MS } from './server-options.ts';

interface ParserError extends Error {
  code?: string;
}

/** The status and message for what the parser refused. */
export function clientErrorAnswer(err: ParserError): { status: number; reason: string; message: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', message: 'The request line and headers are larger than the server reads (16 KiB in all); send a shorter URL or fewer headers.' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, reason: 'Request Timeout', message: `The request's headers did not arrive within ${HEADERS_TIMEOUT_MS / 1000} s.` };
  }
  return { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP/1.1.' };
}

export function answerClientErrors(server: Server): void {
  const closingAfter = new WeakSet<Duplex>();
  server.on('clientError', (err: ParserError, socket: Duplex) => {
    // A connection the client has closed, or one already answered, has nobody to read an answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Bytes that are not HTTP behind a request still being answered (a body sent without
    // Content-Length reads as a second request): that request is answered, then the connection
    // closed; destroying it at once lost the answer.
    const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (pending) {
      if (!closingAfter.has(socket)) {
        closingAfter.add(socket);
        if (!pending.headersSent) pending.shouldKeepAlive = false;
        pending.once('finish', () => socket.end());
        pending.once('close', () => {
          if (!pending.writableFinished) socket.destroy();
        });
      }
      return;
    }
    const { status, reason, message } = clientErrorAnswer(err);
    const body = JSON.stringify({ status, message });
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}
