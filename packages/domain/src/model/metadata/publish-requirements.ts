import type { FieldIssue } from '../../errors.ts';
import type { Metadata, RecordKind } from '../types.ts';
import { isEdtf } from './edtf.ts';

/** Strict checks at publish, on normalised metadata; every problem at once. */
export function publishIssues(metadata: Metadata, _kind: RecordKind): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const title = metadata['title'];
  if (typeof title !== 'string' || title.trim() === '') issues.push({ field: 'metadata.title', messages: ['Missing data for required field.'] });
  else if (title.trim().length < 3) issues.push({ field: 'metadata.title', messages: ['Shorter than minimum length 3.'] });
  const date = metadata['publication_date'];
  if (typeof date !== 'string' || date === '') issues.push({ field: 'metadata.publication_date', messages: ['Missing data for required field.'] });
  else if (!isEdtf(date)) issues.push({ field: 'metadata.publication_date', messages: ['Please provide a valid date or interval.'] });
  const creators = metadata['creators'];
  if (!Array.isArray(creators) || creators.length === 0) issues.push({ field: 'metadata.creators', messages: ['Missing data for required field.'] });
  return issues;
}
