/**
 * Answers the normal path gave, as @hono/node-server handed them to Node (status, header record
 * in its order and spelling, body), each under the read stamp it was built at. Bounded by size,
 * least recently used out.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { sizeBoundedCache } from '../size-bounded-cache.ts';

export interface KeptAnswer {
  stamp: string;
  status: number;
  headers: OutgoingHttpHeaders;
  /** Absent for a HEAD. */
  body: Buffer | undefined;
  size: number;
}

export function keptAnswers(maxBytes: number) {
  const answers = sizeBoundedCache<KeptAnswer>(maxBytes, (answer) => answer.size, 16);
  return {
    get: (key: string): KeptAnswer | undefined => answers.get(key),
    keep: (key: string, answer: KeptAnswer): void => answers.set(key, answer),
    drop: (key: string): void => answers.drop(key),
  };
}

export type KeptAnswers = ReturnType<typeof keptAnswers>;
