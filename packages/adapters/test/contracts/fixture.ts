import { afterEach } from 'vitest';
import type { Repositories, UnitOfWork } from '@krs/domain';

export interface RepositoriesFixture {
  repos: Repositories;
  uow: UnitOfWork;
  close?: () => Promise<void>;
}

export type MakeRepositories = () => Promise<RepositoriesFixture>;

/**
 * Call inside `describe`: fixtures made through the returned function are closed after each
 * test, also when an assertion failed half-way.
 */
export function closingAfterEach<T extends { close?: () => Promise<void> }>(make: () => Promise<T>): () => Promise<T> {
  const open: T[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close?.();
  });
  return async () => {
    const f = await make();
    open.push(f);
    return f;
  };
}
