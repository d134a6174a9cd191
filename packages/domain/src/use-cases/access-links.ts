/**
 * Access links of a record's parent (shared by all versions). Only owners manage them.
 * One module for the five verbs: they share the same loading and checks.
 */
import { invalid, notFound, type FieldIssue } from '../errors.ts';
import { requireLevel } from '../model/access.ts';
import { parseIsoDateTime } from '../model/iso-date-time.ts';
import { touchParent } from '../model/record.ts';
import type { AccessLink, AccessPermission, Identity, Parent, RecordKind } from '../model/types.ts';
import type { AccessLinkView } from '../model/views.ts';
import type { Repositories } from '../ports.ts';
import type { CoreDeps } from './deps.ts';
import type { LinkTokens } from './link-tokens.ts';
import { levelFor, parentOfRecord } from './lookup.ts';

export interface AccessLinkInput {
  permission?: unknown;
  /** ISO date-time; null or absent: never expires. */
  expiresAt?: unknown;
}

const PERMISSIONS: readonly AccessPermission[] = ['view', 'preview', 'edit'];

async function ownedParent(tx: Repositories, identity: Identity, kind: RecordKind, id: string, now: string): Promise<Parent> {
  const parent = await parentOfRecord(tx, kind, id);
  requireLevel(identity, await levelFor(tx, identity, parent, now), 'owner');
  return parent;
}

function checkInput(input: AccessLinkInput, now: string): { permission: AccessPermission; expiresAt: string | null } {
  const issues: FieldIssue[] = [];
  const permission = input.permission;
  if (permission === undefined || permission === null) issues.push({ field: 'permission', messages: ['Missing data for required field.'] });
  else if (!PERMISSIONS.includes(permission as AccessPermission)) issues.push({ field: 'permission', messages: ['Must be one of: view, preview, edit.'] });
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const t = typeof input.expiresAt === 'string' ? parseIsoDateTime(input.expiresAt) : Number.NaN;
    if (Number.isNaN(t)) issues.push({ field: 'expires_at', messages: ['Not a valid datetime.'] });
    else if (t <= Date.parse(now)) issues.push({ field: 'expires_at', messages: ['Expiration date must be set to the future.'] });
    else expiresAt = new Date(t).toISOString();
  }
  if (issues.length > 0) throw invalid('access_link.invalid', 'A validation error occurred.', issues);
  return { permission: permission as AccessPermission, expiresAt };
}

const view = async (tokens: LinkTokens, kind: RecordKind, recordId: string, link: AccessLink): Promise<AccessLinkView> => ({
  kind,
  recordId,
  link,
  token: await tokens.tokenFor(link.id),
});

function findLink(parent: Parent, linkId: string): AccessLink {
  const link = parent.accessLinks.find((l) => l.id === linkId);
  if (!link) throw notFound('access_link.not_found', 'Access link not found.');
  return link;
}

export async function createAccessLink(deps: CoreDeps, tokens: LinkTokens, identity: Identity, kind: RecordKind, id: string, input: AccessLinkInput): Promise<AccessLinkView> {
  return deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const parent = await ownedParent(tx, identity, kind, id, now);
    const checked = checkInput(input, now);
    const link: AccessLink = { id: deps.ids.uuid(), createdAt: now, createdBy: identity.userId ?? '', ...checked };
    await tx.records.saveParent(touchParent(parent, now, { accessLinks: [...parent.accessLinks, link] }), parent.revisionId);
    return view(tokens, kind, id, link);
  });
}

export async function listAccessLinks(deps: CoreDeps, tokens: LinkTokens, identity: Identity, kind: RecordKind, id: string): Promise<AccessLinkView[]> {
  const parent = await ownedParent(deps.repos, identity, kind, id, deps.clock.now());
  return Promise.all(parent.accessLinks.map((l) => view(tokens, kind, id, l)));
}

export async function getAccessLink(deps: CoreDeps, tokens: LinkTokens, identity: Identity, kind: RecordKind, id: string, linkId: string): Promise<AccessLinkView> {
  const parent = await ownedParent(deps.repos, identity, kind, id, deps.clock.now());
  return view(tokens, kind, id, findLink(parent, linkId));
}

/** Permission may change freely; an expiry may only move earlier, never later or away. */
export async function updateAccessLink(deps: CoreDeps, tokens: LinkTokens, identity: Identity, kind: RecordKind, id: string, linkId: string, input: AccessLinkInput): Promise<AccessLinkView> {
  return deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const parent = await ownedParent(tx, identity, kind, id, now);
    const link = findLink(parent, linkId);
    const checked = checkInput({ permission: input.permission, expiresAt: input.expiresAt === undefined ? link.expiresAt : input.expiresAt }, now);
    if (link.expiresAt !== null && (checked.expiresAt === null || Date.parse(checked.expiresAt) > Date.parse(link.expiresAt))) {
      throw invalid('access_link.extend', 'A validation error occurred.', [
        { field: 'expires_at', messages: ['An expiration date can only be brought forward, not extended or removed.'] },
      ]);
    }
    const updated: AccessLink = { ...link, ...checked };
    const links = parent.accessLinks.map((l) => (l.id === linkId ? updated : l));
    await tx.records.saveParent(touchParent(parent, now, { accessLinks: links }), parent.revisionId);
    return view(tokens, kind, id, updated);
  });
}

export async function deleteAccessLink(deps: CoreDeps, identity: Identity, kind: RecordKind, id: string, linkId: string): Promise<void> {
  await deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const parent = await ownedParent(tx, identity, kind, id, now);
    findLink(parent, linkId);
    await tx.records.saveParent(touchParent(parent, now, { accessLinks: parent.accessLinks.filter((l) => l.id !== linkId) }), parent.revisionId);
  });
}
