import { blobUploadRepositoryContract } from './contracts/blob-upload-repository.contract.ts';
import { fileRepositoryContract } from './contracts/file-repository.contract.ts';
import { recordRepositoryContract } from './contracts/record-repository.contract.ts';
import { unitOfWorkContract } from './contracts/unit-of-work.contract.ts';
import { userRepositoryContract } from './contracts/user-repository.contract.ts';
import { vocabularyRepositoryContract } from './contracts/vocabulary-repository.contract.ts';
import { openPostgres, usePostgresServer } from './postgres-fixture.ts';

usePostgresServer();

const make = () => openPostgres();

recordRepositoryContract('postgres', make, { changeStamps: false });
fileRepositoryContract('postgres', make);
blobUploadRepositoryContract('postgres', make);
userRepositoryContract('postgres', make);
vocabularyRepositoryContract('postgres', make);
unitOfWorkContract('postgres', make);
