import { docker, eventually } from './driver-swarm-support.js';

export const SWARM_ID = 'com.docker.swarm.id';

export interface PsRow {
  status: string;
  ports: string;
}

/** `docker ps -a` through swarm as `node/name` → status and ports. */
export async function rows(host: string): Promise<Map<string, PsRow>> {
  const out = await docker(host, 'ps', '-a', '--format', '{{.Names}}\t{{.Status}}\t{{.Ports}}');
  const map = new Map<string, PsRow>();
  for (const line of out.split('\n').filter(Boolean)) {
    const [name = '', status = '', ports = ''] = line.split('\t');
    map.set(name, { status, ports });
  }
  return map;
}

/** The `node/name` rows of one container name. */
export function rowsNamed(all: Map<string, PsRow>, name: string): Array<[string, PsRow]> {
  return [...all].filter(([key]) => key.endsWith(`/${name}`));
}

/** `eventually` for an async check: one check in flight at a time. */
export async function pollAsync<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  let found: T | undefined;
  let busy = false;
  return eventually(
    what,
    () => {
      if (!busy) {
        busy = true;
        void check().then(
          (value) => {
            found = value;
            busy = false;
          },
          () => {
            busy = false;
          },
        );
      }
      return found;
    },
    timeoutMs,
  );
}
