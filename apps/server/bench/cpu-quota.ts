/**
 * A CPU quota for one process, from the kernel's cgroups (v2 `cpu.max`, else v1
 * `cpu.cfs_quota_us`): what a container's CPU limit gives each node of a deployment. On a machine
 * with too few cores for a core per node, one for PostgreSQL and one for the generator, nodes held
 * to the same quota still show what a second node adds, as long as the shared stores have room.
 * Creating a cgroup needs root and a writable cgroup file system; without them there is no quota
 * and the caller says so.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PERIOD_US = 100_000;
const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/cpu';

export interface CpuQuota {
  /** Holds the process to `share` of a core (0.25: a quarter), or frees it with null. */
  set(share: number | null): void;
  /** Frees the process and removes the cgroup. */
  remove(): void;
}

interface Layout {
  root: string;
  write(dir: string, share: number | null): void;
}

function layout(): Layout | null {
  if (existsSync(join(V2_ROOT, 'cgroup.controllers'))) {
    if (!readFileSync(join(V2_ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')) return null;
    return {
      root: V2_ROOT,
      write: (dir, share) => writeFileSync(join(dir, 'cpu.max'), share === null ? `max ${PERIOD_US}` : `${Math.round(share * PERIOD_US)} ${PERIOD_US}`),
    };
  }
  if (existsSync(join(V1_ROOT, 'cpu.cfs_quota_us'))) {
    return {
      root: V1_ROOT,
      write: (dir, share) => {
        writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
        writeFileSync(join(dir, 'cpu.cfs_quota_us'), share === null ? '-1' : String(Math.round(share * PERIOD_US)));
      },
    };
  }
  return null;
}

/** Moves `pid` (all its threads, and what it forks later) into a cgroup of its own, or null. */
export function cpuQuotaFor(pid: number, name: string): CpuQuota | null {
  const where = layout();
  if (where === null) return null;
  const dir = join(where.root, name);
  try {
    // cgroup v2 lets a child group limit CPU only once the parent hands the controller down.
    if (where.root === V2_ROOT) writeFileSync(join(V2_ROOT, 'cgroup.subtree_control'), '+cpu');
    mkdirSync(dir, { recursive: true });
    where.write(dir, null);
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      /* never made */
    }
    return null;
  }
  return {
    set: (share) => where.write(dir, share),
    remove: () => {
      try {
        writeFileSync(join(where.root, 'cgroup.procs'), String(pid));
      } catch {
        /* the process has ended, which leaves the cgroup empty anyway */
      }
      rmdirSync(dir);
    },
  };
}
