import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TESTBED = fileURLToPath(new URL('../testbed/testbed.sh', import.meta.url));

export interface TestEngine {
  /** Engine index: name node<index>, address 127.0.0.<index+1>. */
  index: number;
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
}

const root = () => process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed';

async function testbed(args: string[]): Promise<string> {
  const { stdout } = await run('bash', [TESTBED, ...args], { maxBuffer: 1 << 20 });
  return stdout;
}

function upArgs(first: number, count: number, options: TestbedOptions): string[] {
  const args = ['up', String(count), '--first', String(first)];
  for (const label of options.labels ?? []) args.push('--label', label);
  if (options.tlsDir) args.push('--tls', options.tlsDir);
  return args;
}

/** Start real dockerd engines (see test/testbed/testbed.sh) with busybox:local imported. */
export async function startTestbed(options: TestbedOptions): Promise<Testbed> {
  await testbed(upArgs(options.first, options.count, options));
  const port = options.tlsDir ? 2376 : 2375;
  const engines: TestEngine[] = [];
  for (let index = options.first; index < options.first + options.count; index++) {
    const host = `127.0.0.${index + 1}`;
    engines.push({ index, name: `node${index}`, host, port, addr: `${host}:${port}`, socket: `${root()}/engine${index}/docker.sock` });
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
