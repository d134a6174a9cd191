/**
 * Limits of the members of a draft body beside `metadata`: they are stored as sent, so they are
 * checked for shape and size before anything is kept (400 with field errors otherwise).
 */
import type { FieldIssue } from '../../errors.ts';
import type { DraftInput } from '../record.ts';
import { CUSTOM_FIELD_LIMITS, limitExceeded, METADATA_LIMITS, tooDeepPath } from './limits.ts';
import { isObj, keyInPath } from './normalizer.ts';

const PID_SCHEME = /^[a-z][a-z0-9_-]{0,49}$/;
const PID_MEMBERS = ['identifier', 'provider', 'client'];
const MAX_KEY = 255;

function pidsIssues(pids: unknown): FieldIssue[] {
  if (!isObj(pids)) return [{ field: 'pids', messages: ['Not a valid object.'] }];
  const schemes = Object.keys(pids);
  if (schemes.length > 10) return [{ field: 'pids', messages: ['At most 10 persistent identifiers.'] }];
  const issues: FieldIssue[] = [];
  for (const scheme of schemes) {
    const path = `pids.${keyInPath(scheme)}`;
    const pid = pids[scheme];
    if (!PID_SCHEME.test(scheme)) issues.push({ field: path, messages: ['Not a valid identifier scheme.'] });
    else if (!isObj(pid)) issues.push({ field: path, messages: ['Must be an object with an identifier and a provider.'] });
    else {
      for (const [key, value] of Object.entries(pid)) {
        if (!PID_MEMBERS.includes(key)) issues.push({ field: `${path}.${keyInPath(key)}`, messages: ['Unknown field.'] });
        else if (typeof value !== 'string' || value.length > METADATA_LIMITS.maxText) issues.push({ field: `${path}.${key}`, messages: [`Must be a text of at most ${METADATA_LIMITS.maxText} characters.`] });
      }
    }
  }
  return issues;
}

function customFieldsIssues(fields: unknown): FieldIssue[] {
  if (!isObj(fields)) return [{ field: 'custom_fields', messages: ['Not a valid object.'] }];
  const keys = Object.keys(fields);
  if (keys.length > CUSTOM_FIELD_LIMITS.maxKeys) return [{ field: 'custom_fields', messages: [`At most ${CUSTOM_FIELD_LIMITS.maxKeys} fields.`] }];
  const long = keys.find((k) => k.length > 100);
  if (long !== undefined) return [{ field: `custom_fields.${keyInPath(long)}`, messages: ['Field names are at most 100 characters.'] }];
  const deep = tooDeepPath(fields, 'custom_fields', CUSTOM_FIELD_LIMITS.maxDepth);
  if (deep !== null) return [{ field: deep, messages: [`Nested deeper than ${CUSTOM_FIELD_LIMITS.maxDepth} levels.`] }];
  if (JSON.stringify(fields).length > CUSTOM_FIELD_LIMITS.maxSerialized) {
    return [{ field: 'custom_fields', messages: [`Larger than ${CUSTOM_FIELD_LIMITS.maxSerialized} characters.`] }];
  }
  return [];
}

/** Throws the 400 for any member of the body (other than `metadata`) past its limit. */
export function assertDraftInputWithinLimits(input: DraftInput, maxFiles: number): void {
  const issues: FieldIssue[] = [];
  if (input.pids !== undefined) issues.push(...pidsIssues(input.pids));
  if (input.customFields !== undefined) issues.push(...customFieldsIssues(input.customFields));
  const order = input.files?.order;
  // Each entry names a file of the record, so there can be no more than files allowed.
  if (order && order.length > maxFiles) issues.push({ field: 'files.order', messages: [`At most ${maxFiles} entries (one per file).`] });
  else if (order?.some((key) => key.length > MAX_KEY)) issues.push({ field: 'files.order', messages: [`File keys are at most ${MAX_KEY} characters.`] });
  const preview = input.files?.defaultPreview;
  if (typeof preview === 'string' && preview.length > MAX_KEY) issues.push({ field: 'files.default_preview', messages: [`File keys are at most ${MAX_KEY} characters.`] });
  const reason = input.access?.embargo?.reason;
  if (typeof reason === 'string' && reason.length > METADATA_LIMITS.maxText) {
    issues.push({ field: 'access.embargo.reason', messages: [`Longer than maximum length ${METADATA_LIMITS.maxText}.`] });
  }
  const until = input.access?.embargo?.until;
  if (typeof until === 'string' && until.length > 100) issues.push({ field: 'access.embargo.until', messages: ['Not a valid date.'] });
  if (issues.length > 0) throw limitExceeded(issues);
}
