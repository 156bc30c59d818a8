import Docker from 'dockerode';
import type { Attribute, Range, Resource } from './types.js';

export interface AgentSpec {
  /** The agent's Docker engine (it also plays the agent). */
  host: string;
  port: number;
  attributes?: Record<string, string>;
  /** PEM material when the engine listens with --tlsverify (the agent then reaches it over TLS). */
  tls?: { ca: Buffer; cert: Buffer; key: Buffer };
}

const AGENT_PORT = 5051;
const DISK_MB = 10_240;

/** A Mesos agent played by a real Docker engine: resources from its `docker info`. */
export class DoubleAgent {
  readonly docker: Docker;
  id = '';
  hostname = '';
  cpus = 0;
  memMb = 0;
  readonly disk = DISK_MB;

  constructor(
    readonly spec: AgentSpec,
    readonly ports: Range,
  ) {
    this.docker = spec.tls
      ? new Docker({ host: spec.host, port: spec.port, protocol: 'https', ...spec.tls })
      : new Docker({ host: spec.host, port: spec.port });
  }

  async load(): Promise<void> {
    const info = (await this.docker.info()) as { ID: string; Name: string; NCPU: number; MemTotal: number };
    // The same engine is the same agent for every master (as agents re-register after a failover).
    this.id = `${info.ID.replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}-S0`;
    this.hostname = info.Name;
    this.cpus = info.NCPU;
    this.memMb = Math.floor(info.MemTotal / (1024 * 1024));
  }

  attributes(): Attribute[] {
    return Object.entries(this.spec.attributes ?? {}).map(([name, value]) => ({ name, type: 'TEXT', text: { value } }));
  }

  url() {
    return { scheme: 'http', address: { hostname: this.hostname, ip: this.spec.host, port: AGENT_PORT }, path: '/slave(1)' };
  }

  /** What is left after `used`, as offer resources. */
  available(used: { cpus: number; mem: number; ports: ReadonlySet<number> }): Resource[] {
    const resources: Resource[] = [];
    const cpus = Math.round((this.cpus - used.cpus) * 1000) / 1000;
    const mem = this.memMb - used.mem;
    if (cpus > 0) resources.push({ name: 'cpus', type: 'SCALAR', scalar: { value: cpus }, role: '*' });
    if (mem > 0) resources.push({ name: 'mem', type: 'SCALAR', scalar: { value: mem }, role: '*' });
    resources.push({ name: 'disk', type: 'SCALAR', scalar: { value: this.disk }, role: '*' });
    const ranges = freeRanges(this.ports, used.ports);
    if (ranges.length > 0) resources.push({ name: 'ports', type: 'RANGES', ranges: { range: ranges }, role: '*' });
    return resources;
  }
}

function freeRanges(all: Range, used: ReadonlySet<number>): Range[] {
  const ranges: Range[] = [];
  let start: number | undefined;
  for (let port = all.begin; port <= all.end + 1; port++) {
    const free = port <= all.end && !used.has(port);
    if (free && start === undefined) start = port;
    if (!free && start !== undefined) {
      ranges.push({ begin: start, end: port - 1 });
      start = undefined;
    }
  }
  return ranges;
}
