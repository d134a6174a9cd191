import type { CoreDeps } from '../deps.ts';
import { withinMs } from './within-ms.ts';

export const DEPENDENCIES = ['database', 'storage', 'search'] as const;
export type Dependency = (typeof DEPENDENCIES)[number];

export interface Readiness {
  ready: boolean;
  /** Per dependency: null when it answered, else why not. */
  checks: { [d in Dependency]: string | null };
}

/**
 * Asks each dependency's port whether it can serve, all at once, each within `timeoutMs`: a
 * probe must answer in bounded time even when a disk or mount hangs.
 */
export async function checkReadiness(deps: CoreDeps, timeoutMs: number): Promise<Readiness> {
  const probes: { [d in Dependency]: () => Promise<void> } = {
    database: () => deps.uow.check(),
    storage: () => deps.storage.check(),
    search: () => deps.search.check(),
  };
  const outcomes = await Promise.all(DEPENDENCIES.map((d) => withTimeout(probes[d], timeoutMs)));
  const checks = Object.fromEntries(DEPENDENCIES.map((d, i) => [d, outcomes[i] ?? null])) as Readiness['checks'];
  return { ready: outcomes.every((o) => o === null), checks };
}

/** Null when the probe answers in time, else what went wrong. */
function withTimeout(probe: () => Promise<void>, timeoutMs: number): Promise<string | null> {
  return withinMs(probe(), timeoutMs).then(
    () => null,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
}
