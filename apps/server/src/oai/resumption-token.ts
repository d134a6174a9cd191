/**
 * Resumption tokens carry the whole request and the position reached, not a key into server
 * memory: a harvest resumes across restarts and on any node. The position is the last version
 * handed out in (updated, id) order, so versions changed while a harvest runs are not skipped
 * (they move to the end of the walk) and none is given twice within one list.
 */
import { z } from 'zod';
import { OaiError } from './arguments.ts';

export interface ListState {
  metadataPrefix: string;
  set?: string;
  from?: string;
  until?: string;
  after: { updated: string; id: string };
  /** Items delivered before this page (the token's `cursor` attribute). */
  cursor: number;
}

const Token = z
  .object({
    v: z.literal(1),
    m: z.string().max(100),
    s: z.string().max(300).optional(),
    f: z.string().max(40).optional(),
    u: z.string().max(40).optional(),
    a: z.tuple([z.string().max(40), z.string().max(200)]),
    c: z.number().int().nonnegative(),
  })
  .strict();

export function encodeToken(state: ListState): string {
  const token: z.infer<typeof Token> = { v: 1, m: state.metadataPrefix, a: [state.after.updated, state.after.id], c: state.cursor };
  if (state.set !== undefined) token.s = state.set;
  if (state.from !== undefined) token.f = state.from;
  if (state.until !== undefined) token.u = state.until;
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

export function decodeToken(text: string): ListState {
  const bad = () => new OaiError('badResumptionToken', 'The resumption token is not one this repository issued.');
  if (text.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(text)) throw bad();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const parsed = Token.safeParse(json);
  if (!parsed.success) throw bad();
  const t = parsed.data;
  return {
    metadataPrefix: t.m,
    ...(t.s !== undefined ? { set: t.s } : {}),
    ...(t.f !== undefined ? { from: t.f } : {}),
    ...(t.u !== undefined ? { until: t.u } : {}),
    after: { updated: t.a[0], id: t.a[1] },
    cursor: t.c,
  };
}
