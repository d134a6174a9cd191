import type { Repositories } from '@krs/domain';
import type { Kysely } from 'kysely';
import type { Database } from './database.ts';
import { createSqlBlobUploadRepository } from './blob-upload-repository.ts';
import { createSqlFileRepository } from './file-repository.ts';
import { createSqlRecordRepository } from './record-repository.ts';
import { createSqlUserRepository } from './user-repository.ts';
import { createSqlVocabularyRepository, type RowReader } from './vocabulary-repository.ts';

/**
 * All repositories over one handle: the database, or a transaction to keep their writes together
 * (`lockReads`: see createSqlRecordRepository; `reader`: see createSqlVocabularyRepository).
 */
export function createSqlRepositories(db: Kysely<Database>, options: { lockReads?: boolean; reader?: RowReader } = {}): Repositories {
  return {
    records: createSqlRecordRepository(db, options),
    files: createSqlFileRepository(db),
    blobUploads: createSqlBlobUploadRepository(db),
    users: createSqlUserRepository(db),
    vocabularies: createSqlVocabularyRepository(db, options.reader),
  };
}
