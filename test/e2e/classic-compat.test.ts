import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { dockerOk, tempDir } from './api-support.js';

// Scripts written for Swarm classic 1.2, run unchanged against swarm with the real docker CLI.
// Engines 130-132 behind `swarm manage` on port 26000 (indexes 130-132, ports 26000-26009 belong to this file).
const FIRST = 130;
const PORT = 26000;
const SWARM = fileURLToPath(new URL('../../core/dist/cli/bin.js', import.meta.url));
const run = promisify(execFile);

/** `swarm args...` with the built CLI: exit code, stdout and stderr. */
async function swarmCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SWARM, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

let testbed: Testbed;
let manager: Manager;
let workdir: { path: string; remove(): void };
let clusterFile: string;
let host: string;
const addr = (index: number) => `127.0.0.${index + 1}:2375`;

beforeAll(async () => {
  [testbed, workdir] = await Promise.all([startTestbed({ first: FIRST, count: 3 }), tempDir('swarm-e2e-classic-')]);
  clusterFile = join(workdir.path, 'cluster');
  // A cluster file as Swarm classic users write them: comment lines, inline comments, blank lines, a range, tabs.
  writeFileSync(
    clusterFile,
    [
      '# production engines',
      `${addr(FIRST)}   # node${FIRST}`,
      '',
      '   # the other two, as a range',
      `127.0.0.[${FIRST + 2}:${FIRST + 3}]:2375\t# node${FIRST + 1} and node${FIRST + 2}`,
      '',
    ].join('\n'),
  );
  manager = await startManager({ discovery: `file://${clusterFile}`, port: PORT, expectNodes: 3 });
  host = manager.host;
});

afterAll(async () => {
  await manager?.stop();
  await testbed?.stop();
  workdir?.remove();
});

describe('file:// discovery reads Swarm classic cluster files', () => {
  it('swarm list prints the addresses, without the comments', async () => {
    const listed = await swarmCli('list', `file://${clusterFile}`);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toBe(`${addr(FIRST)}\n${addr(FIRST + 1)}\n${addr(FIRST + 2)}\n`);
  });

  it('swarm manage serves every engine of the file (docker info)', async () => {
    const info = await dockerOk(host, ['info']);
    expect(info).toMatch(/Nodes: 3\n/);
    for (let index = FIRST; index < FIRST + 3; index++) expect(info).toContain(`node${index}: ${addr(index)}`);
  });

  it("swarm list keeps classic's refusal of a non-positive --timeout", async () => {
    const listed = await swarmCli('list', '--timeout', '0s', `file://${clusterFile}`);
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain('--timeout should be a positive number');
  });
});
