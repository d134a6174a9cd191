import type { RecordContent } from './types.ts';

export type AccessStatus = 'open' | 'restricted' | 'embargoed' | 'metadata-only';

/** InvenioRDM's access status: what a reader can get of the record and its files. */
export function accessStatus(content: Pick<RecordContent, 'access' | 'files'>): AccessStatus {
  if (content.access.embargo.active) return 'embargoed';
  if (content.access.record === 'restricted') return 'restricted';
  if (!content.files.enabled) return 'metadata-only';
  if (content.access.files === 'restricted') return 'restricted';
  return 'open';
}
