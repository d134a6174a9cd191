import { createInMemoryFileStorage } from '@krs/domain/testing';
import { fileStorageContract } from './contracts/file-storage.contract.ts';

fileStorageContract('in-memory', async () => createInMemoryFileStorage());
