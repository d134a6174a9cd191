import { createInMemoryRepositories } from '@krs/domain/testing';
import { blobUploadRepositoryContract } from './contracts/blob-upload-repository.contract.ts';
import { fileRepositoryContract } from './contracts/file-repository.contract.ts';
import { recordRepositoryContract } from './contracts/record-repository.contract.ts';
import { unitOfWorkContract } from './contracts/unit-of-work.contract.ts';
import { userRepositoryContract } from './contracts/user-repository.contract.ts';
import { vocabularyRepositoryContract } from './contracts/vocabulary-repository.contract.ts';

const make = async () => createInMemoryRepositories();

recordRepositoryContract('in-memory', make);
fileRepositoryContract('in-memory', make);
blobUploadRepositoryContract('in-memory', make);
userRepositoryContract('in-memory', make);
vocabularyRepositoryContract('in-memory', make);
unitOfWorkContract('in-memory', make);
