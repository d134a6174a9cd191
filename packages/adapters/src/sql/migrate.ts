import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as initial from './migrations/0001-initial.ts';
import * as fileBlobIndex from './migrations/0002-file-blob-index.ts';
import * as accessLinkTokensDropped from './migrations/0003-access-link-tokens-dropped.ts';
import * as embargoIndex from './migrations/0004-embargo-index.ts';
import * as recordUpdatedIndex from './migrations/0005-record-updated-index.ts';
import * as blobUpload from './migrations/0006-blob-upload.ts';
import * as vocabularyListing from './migrations/0007-vocabulary-listing.ts';
import * as vocabularyTags from './migrations/0008-vocabulary-tags.ts';
import * as recordVersionHead from './migrations/0009-record-version-head.ts';
import * as parentManagedBy from './migrations/0010-parent-managed-by.ts';

/** Listed statically: append-only, never renamed. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-file-blob-index': fileBlobIndex,
  '0003-access-link-tokens-dropped': accessLinkTokensDropped,
  '0004-embargo-index': embargoIndex,
  '0005-record-updated-index': recordUpdatedIndex,
  '0006-blob-upload': blobUpload,
  '0007-vocabulary-listing': vocabularyListing,
  '0008-vocabulary-tags': vocabularyTags,
  '0009-record-version-head': recordVersionHead,
  '0010-parent-managed-by': parentManagedBy,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export function createMigrator<T>(db: Kysely<T>): Migrator {
  return new Migrator({ db, provider });
}

export async function migrateToLatest<T>(db: Kysely<T>): Promise<void> {
  const { error, results } = await createMigrator(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (failed) throw new Error(`migration ${failed.migrationName} failed: ${error instanceof Error ? error.message : String(error)}`);
  // Before any migration ran: the database could not be reached or read (refused, wrong password, no such database).
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
