/**
 * Who may do what with a record. Levels are ordered: a higher level includes every lower one.
 * Owners manage access links; `edit` holders may do everything else an owner does.
 */
import { forbidden, unauthenticated } from '../errors.ts';
import type { AccessLink, Identity, Parent } from './types.ts';

export type AccessLevel = 'view' | 'preview' | 'edit' | 'owner';

const rank: Record<AccessLevel, number> = { view: 1, preview: 2, edit: 3, owner: 4 };

export const atLeast = (level: AccessLevel | null, wanted: AccessLevel): boolean =>
  level !== null && rank[level] >= rank[wanted];

export const higher = (a: AccessLevel | null, b: AccessLevel | null): AccessLevel | null =>
  a === null ? b : b === null ? a : rank[a] >= rank[b] ? a : b;

/** Expired links grant nothing; `now` and `expiresAt` are ISO strings and compare as instants. */
export const isLinkActive = (link: AccessLink, now: string): boolean =>
  link.expiresAt === null || Date.parse(link.expiresAt) > Date.parse(now);

/**
 * The level the identity holds on this parent by ownership or by presented link tokens.
 * `managerOwnerId` is the owner of the package whose context holds this resource, who may edit it.
 */
export function levelOn(identity: Identity, parent: Parent, now: string, managerOwnerId: string | null = null): AccessLevel | null {
  let level: AccessLevel | null = null;
  if (identity.userId !== null && identity.userId === parent.ownerId) return 'owner';
  if (identity.userId !== null && managerOwnerId !== null && identity.userId === managerOwnerId) level = 'edit';
  for (const linkId of identity.linkIds) {
    const link = parent.accessLinks.find((l) => l.id === linkId);
    if (link && isLinkActive(link, now)) level = higher(level, link.permission);
  }
  return level;
}

/**
 * Throws 401 for callers who hold nothing here and are not signed in (signing in may help), and
 * 403 for everyone else lacking the level: signed-in users, and link holders whose valid link
 * grants too little.
 */
export function requireLevel(identity: Identity, level: AccessLevel | null, wanted: AccessLevel): void {
  if (atLeast(level, wanted)) return;
  if (identity.userId === null && level === null) throw unauthenticated();
  throw forbidden();
}

export function requireSignedIn(identity: Identity): string {
  if (identity.userId === null) throw unauthenticated();
  return identity.userId;
}
