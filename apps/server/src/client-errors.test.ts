import { describe, expect, it } from 'vitest';
import { clientErrorAnswer } from './client-errors.ts';

const parserError = (code: string) => Object.assign(new Error(code), { code });

describe("the answer to what Node's HTTP parser refuses", () => {
  it('keeps the status Node gives: 431 past the header size, 408 for headers still arriving, 400 for the rest', () => {
    expect(clientErrorAnswer(parserError('HPE_HEADER_OVERFLOW')).status).toBe(431);
    expect(clientErrorAnswer(parserError('ERR_HTTP_REQUEST_TIMEOUT'))).toMatchObject({ status: 408, message: "The request's headers did not arrive within 60 s." });
    expect(clientErrorAnswer(parserError('HPE_INVALID_METHOD'))).toMatchObject({ status: 400, reason: 'Bad Request' });
  });
});
