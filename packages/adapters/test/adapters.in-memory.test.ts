import { createInMemoryFileStorage, createInMemoryRepositories, createInMemorySearchIndex } from '@krs/domain/testing';
import { fileStorageContract } from './contracts/file-storage.contract.ts';
import { repositoriesContract } from './contracts/repositories.contract.ts';
import { searchIndexContract } from './contracts/search-index.contract.ts';

repositoriesContract('in-memory', async () => createInMemoryRepositories());
fileStorageContract('in-memory', async () => createInMemoryFileStorage());
searchIndexContract('in-memory', async () => createInMemorySearchIndex());
