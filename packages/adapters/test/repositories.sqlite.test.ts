import { blobUploadRepositoryContract } from './contracts/blob-upload-repository.contract.ts';
import { fileRepositoryContract } from './contracts/file-repository.contract.ts';
import { recordRepositoryContract } from './contracts/record-repository.contract.ts';
import { unitOfWorkContract } from './contracts/unit-of-work.contract.ts';
import { userRepositoryContract } from './contracts/user-repository.contract.ts';
import { vocabularyRepositoryContract } from './contracts/vocabulary-repository.contract.ts';
import { createSqliteRowReader, createSqlUnitOfWork } from '../src/index.ts';
import { openSqlite } from './sqlite-fixture.ts';

const make = () => openSqlite();

recordRepositoryContract('sqlite', make);
fileRepositoryContract('sqlite', make);
blobUploadRepositoryContract('sqlite', make);
userRepositoryContract('sqlite', make);
vocabularyRepositoryContract('sqlite', make);
unitOfWorkContract('sqlite', make);

// The server's arrangement: listings read on a reader thread over the same file, the rest on the handle.
vocabularyRepositoryContract('sqlite, listings on a reader thread', async () => {
  const opened = await openSqlite();
  const reader = createSqliteRowReader(opened.file);
  return {
    ...createSqlUnitOfWork(opened.db, { reader }),
    close: async () => {
      await reader.close();
      await opened.close();
    },
  };
});
