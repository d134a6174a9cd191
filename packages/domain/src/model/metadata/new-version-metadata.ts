import type { Metadata } from '../types.ts';

/** A new version starts without the previous version's publication date and version label. */
export function metadataForNewVersion(metadata: Metadata): Metadata {
  const { publication_date: _date, version: _version, ...rest } = metadata;
  return rest;
}
