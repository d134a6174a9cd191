import type { Clock, Digest, FileStorage, IdGenerator, Repositories, SearchIndex, UnitOfWork } from '../ports.ts';

export interface CoreSettings {
  /** Largest accepted file, bytes. */
  maxFileSize: number;
  /** Most files on one record. */
  maxFiles: number;
  /** Host name (no port) named in published records' OAI identifiers: `oai:<host>:<id>`. */
  oaiHost: string;
  /** DOI prefix (`10.1234`) for `reserve_doi`; without one no DOI is reserved. */
  doiPrefix?: string;
  /** The server secret access-link tokens are derived from (at least 16 characters); see link-tokens.ts. */
  linkSecret: string;
  /**
   * Most stored bytes one listing page may read (every hit together); a page asking for more is
   * refused before any record is read. Default LISTING_PAGE_BYTES.
   */
  maxPageBytes?: number;
  /** Most stored bytes one step of a harvest or sitemap walk reads, and one OAI-PMH page holds. Default HARVEST_BYTES. */
  maxHarvestBytes?: number;
}

export interface CoreDeps {
  repos: Repositories;
  uow: UnitOfWork;
  storage: FileStorage;
  search: SearchIndex;
  clock: Clock;
  ids: IdGenerator;
  /** The platform's synchronous sha-256, when it has one; WebCrypto's otherwise. */
  digest?: Digest;
  settings: CoreSettings;
}
