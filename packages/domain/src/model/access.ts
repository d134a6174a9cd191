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

/** The highest level the identity's presented link tokens grant on this parent. */
function linkLevel(identity: Identity, parent: Parent, now: string): AccessLevel | null {
  let level: AccessLevel | null = null;
  for (const linkId of identity.linkIds) {
    const link = parent.accessLinks.find((l) => l.id === linkId);
    if (link && isLinkActive(link, now)) level = higher(level, link.permission);
  }
  return level;
}

/**
 * The level the identity holds on this parent by ownership or by presented link tokens.
 * `manager` is the parent of the package whose context holds this resource: the resource is part
 * of the package, so the package's owner may edit it, and a link to the package grants on it what
 * it grants on the package (a reviewer with the package's preview link sees its draft resources).
 */
export function levelOn(identity: Identity, parent: Parent, now: string, manager: Parent | null = null): AccessLevel | null {
  if (identity.userId !== null && identity.userId === parent.ownerId) return 'owner';
  let level = linkLevel(identity, parent, now);
  if (manager !== null) {
    if (identity.userId !== null && identity.userId === manager.ownerId) level = higher(level, 'edit');
    level = higher(level, linkLevel(identity, manager, now));
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
