import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const root = () => process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed';

/**
 * Holds an exclusive lock named after an engine index until `release()`: for test files that must
 * share engine indexes (the files run up to three at once), so they take turns instead of starting
 * and stopping the same engines under each other. The lock is a `flock` child reading our stdin:
 * when this process ends, however it ends, the child sees end of input and the lock goes with it.
 */
export async function lockEngineIndexes(first: number, waitMs: number): Promise<() => Promise<void>> {
  mkdirSync(root(), { recursive: true });
  const seconds = String(Math.ceil(waitMs / 1000));
  const child = spawn('flock', ['-w', seconds, `${root()}/lock-${first}`, 'sh', '-c', 'echo locked; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    void exited.then((code) => reject(new Error(`no lock on engines from ${first} within ${seconds} s (flock exit ${code})`)));
  });
  return async () => {
    child.stdin.end();
    await exited;
  };
}
