/**
 * Answers the normal path gave, as @hono/node-server handed them to Node (status, header record
 * in its order and spelling, body), each under the read stamp it was built at. Bounded by size,
 * least recently used out.
 */
import type { OutgoingHttpHeaders } from 'node:http';

export interface KeptAnswer {
  stamp: string;
  status: number;
  headers: OutgoingHttpHeaders;
  /** Absent for a HEAD. */
  body: Buffer | undefined;
  size: number;
}

export function keptAnswers(maxBytes: number) {
  const answers = new Map<string, KeptAnswer>();
  let bytes = 0;
  const drop = (key: string) => {
    const old = answers.get(key);
    if (old === undefined) return;
    answers.delete(key);
    bytes -= old.size;
  };
  return {
    get(key: string): KeptAnswer | undefined {
      return answers.get(key);
    },
    /** Marks an answer as just used, so it is evicted last. */
    touch(key: string, answer: KeptAnswer): void {
      answers.delete(key);
      answers.set(key, answer);
    },
    keep(key: string, answer: KeptAnswer): void {
      drop(key);
      // A record near the size limits would push out many others for little gain.
      if (answer.size > maxBytes / 16) return;
      answers.set(key, answer);
      bytes += answer.size;
      for (const k of answers.keys()) {
        if (bytes <= maxBytes) break;
        drop(k);
      }
    },
    drop,
  };
}

export type KeptAnswers = ReturnType<typeof keptAnswers>;
