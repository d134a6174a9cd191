/**
 * Answers the normal path gave, as @hono/node-server handed them to Node (status, header record
 * in its order and spelling, body), each under the read stamp it was built at. Bounded by size,
 * least recently used out.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { sizeBoundedCache } from '@krs/adapters';

export interface KeptAnswer {
  stamp: string;
  status: number;
  headers: OutgoingHttpHeaders;
  /** Absent for a HEAD. */
  body: Buffer | undefined;
  size: number;
  /**
   * The store's change stamp when the read stamp was last found unchanged (read before it); null
   * until then. While the change stamp has not moved since, nothing was committed, so the read
   * stamp, made of rows alone, has not moved either.
   */
  checkedAt: string | null;
}

export function keptAnswers(maxBytes: number) {
  // A record near the size limits would push out many others for little gain.
  return sizeBoundedCache<KeptAnswer>(maxBytes, (answer) => answer.size, maxBytes / 16);
}
