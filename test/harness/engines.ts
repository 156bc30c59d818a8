import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TESTBED = fileURLToPath(new URL('../testbed/testbed.sh', import.meta.url));

/** The dockerd versions the testbed starts: the system's (Debian bookworm) and Debian trixie's. */
export type EngineVersion = '20.10' | '26.1';

export interface TestEngine {
  /** Engine index: name node<index>, address 127.0.0.<index+1>. */
  index: number;
  version: EngineVersion;
  name: string;
  host: string;
  port: number;
  addr: string;
  socket: string;
}

export interface Testbed {
  engines: TestEngine[];
  /** `h1:p,h2:p` for discovery. */
  addrs: string;
  stop(): Promise<void>;
  stopEngine(index: number): Promise<void>;
  startEngine(index: number): Promise<void>;
}

export interface TestbedOptions {
  /** First engine index; give every test file its own range so files never share engines. */
  first: number;
  count: number;
  labels?: string[];
  /** Folder with ca.pem, server-cert.pem, server-key.pem: engines then listen with --tlsverify on 2376. */
  tlsDir?: string;
  /** The dockerd of every engine (default 20.10); `versions` overrides it per engine index. */
  version?: EngineVersion;
  versions?: Partial<Record<number, EngineVersion>>;
}

const root = () => process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed';

async function testbed(args: string[]): Promise<string> {
  const { stdout } = await run('bash', [TESTBED, ...args], { maxBuffer: 1 << 20 });
  return stdout;
}

const versionOf = (options: TestbedOptions, index: number): EngineVersion => options.versions?.[index] ?? options.version ?? '20.10';

function upArgs(first: number, count: number, options: TestbedOptions): string[] {
  const args = ['up', String(count), '--first', String(first), '--engine', versionOf(options, first)];
  for (const label of options.labels ?? []) args.push('--label', label);
  if (options.tlsDir) args.push('--tls', options.tlsDir);
  return args;
}

/** Runs of consecutive indexes with one engine version: one `testbed.sh up` each, run together. */
function versionRuns(options: TestbedOptions): Array<{ first: number; count: number }> {
  const runs: Array<{ first: number; count: number }> = [];
  for (let index = options.first; index < options.first + options.count; index++) {
    const last = runs.at(-1);
    if (last && versionOf(options, last.first) === versionOf(options, index)) last.count++;
    else runs.push({ first: index, count: 1 });
  }
  return runs;
}

/** Start real dockerd engines (see test/testbed/testbed.sh) with busybox:local imported. */
export async function startTestbed(options: TestbedOptions): Promise<Testbed> {
  await Promise.all(versionRuns(options).map((r) => testbed(upArgs(r.first, r.count, options))));
  const port = options.tlsDir ? 2376 : 2375;
  const engines: TestEngine[] = [];
  for (let index = options.first; index < options.first + options.count; index++) {
    const host = `127.0.0.${index + 1}`;
    const socket = `${root()}/engine${index}/docker.sock`;
    engines.push({ index, version: versionOf(options, index), name: `node${index}`, host, port, addr: `${host}:${port}`, socket });
  }
  return {
    engines,
    addrs: engines.map((engine) => engine.addr).join(','),
    stop: async () => {
      await testbed(['down', '--first', String(options.first), '--count', String(options.count)]);
    },
    stopEngine: async (index) => {
      await killEngine(index);
    },
    startEngine: async (index) => {
      await testbed(upArgs(index, 1, options));
    },
  };
}

/** Stop one engine without removing its data (containers survive a later start). */
async function killEngine(index: number): Promise<void> {
  const dir = `${root()}/engine${index}`;
  await run('bash', [
    '-c',
    `pid=$(cat ${dir}/pid 2>/dev/null) || exit 0; kill $pid 2>/dev/null || exit 0; for i in $(seq 1 200); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.1; done; kill -9 $pid 2>/dev/null || true`,
  ]);
}
