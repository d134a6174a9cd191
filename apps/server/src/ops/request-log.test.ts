import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger.ts';
import { recordWhenSent, type RequestLine, type SentResponse } from './request-log.ts';

/** A Node response as the request line sees it, closed by the test. */
function response(bytesBefore: number) {
  let closed: (() => void) | undefined;
  const socket = { bytesWritten: bytesBefore };
  const sent: SentResponse = {
    once: (_event, listener) => (closed = listener),
    writableFinished: false,
    socket,
  };
  return {
    sent,
    close(bytes: number, finished: boolean) {
      socket.bytesWritten += bytes;
      sent.writableFinished = finished;
      closed?.();
    },
  };
}

describe('the request line', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-26T11:00:00.123Z'));
    vi.spyOn(performance, 'now').mockReturnValue(1012.345);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const lines: RequestLine[] = [
    { id: 'lb-7f3a.1', method: 'GET', route: '/api/records/:id', path: '/api/records/abcde-12345', status: 200 },
    { id: '0e6f9a2c-1111-4222-8333-444455556666', method: 'HEAD', route: 'unmatched', path: '/odd "quoted" \\ päth\u0001', status: 404 },
  ];

  it('says the byte count is unknown when the response had no socket', () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (text: string) => void written.push(text) });
    let closed: (() => void) | undefined;
    recordWhenSent(logger, null, { once: (_e, l) => (closed = l), writableFinished: true, socket: null }, 1000, lines[0] as RequestLine);
    closed?.();
    expect(JSON.parse(written[0] as string)).toMatchObject({ bytes: null, status: 200, msg: 'request' });
  });

  it('is not written once the level is raised above info, while the request is still counted', () => {
    const written: string[] = [];
    const logger = createLogger('info', { write: (text: string) => void written.push(text) });
    const counted: number[] = [];
    logger.level = 'warn';
    const res = response(0);
    recordWhenSent(logger, (info) => void counted.push(info.status), res.sent, 1000, lines[0] as RequestLine);
    res.close(10, true);
    expect(written).toEqual([]);
    expect(counted).toEqual([200]);
  });
});
