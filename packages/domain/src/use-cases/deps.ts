import type { Clock, FileStorage, IdGenerator, Repositories, SearchIndex, UnitOfWork } from '../ports.ts';

export interface CoreSettings {
  /** Largest accepted file, bytes. */
  maxFileSize: number;
  /** Most files on one record. */
  maxFiles: number;
  /** Host name (no port) named in published records' OAI identifiers: `oai:<host>:<id>`. */
  oaiHost: string;
}

export interface CoreDeps {
  repos: Repositories;
  uow: UnitOfWork;
  storage: FileStorage;
  search: SearchIndex;
  clock: Clock;
  ids: IdGenerator;
  settings: CoreSettings;
}
