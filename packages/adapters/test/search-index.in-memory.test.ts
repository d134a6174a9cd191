import { createInMemorySearchIndex } from '@krs/domain/testing';
import { searchIndexContract } from './contracts/search-index.contract.ts';

searchIndexContract('in-memory', async () => createInMemorySearchIndex());
