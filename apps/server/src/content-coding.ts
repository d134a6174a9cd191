/**
 * Request bodies are read as sent: a body under a content coding (`Content-Encoding: gzip`, ...)
 * would otherwise be parsed or stored as if its compressed bytes were the content. RFC 9110
 * (15.5.16) answers 415 and names, in `Accept-Encoding`, the codings that would be accepted.
 */
import { DomainError } from '@krs/domain';

export const CONTENT_CODING_CODE = 'request.content_encoding';

/** Throws a 415 unless every coding `Content-Encoding` lists is `identity` (or there is none). */
export function requireIdentityCoding(header: string | undefined): void {
  if (header === undefined) return;
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '');
  if (codings.every((coding) => coding === 'identity')) return;
  throw new DomainError(
    'unsupported_media_type',
    CONTENT_CODING_CODE,
    'Request bodies are read as sent, without a content coding: send it uncompressed, without Content-Encoding.',
  );
}
