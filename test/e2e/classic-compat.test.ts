import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { docker, dockerOk, tempDir } from './api-support.js';

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

/** The names `docker <kind> ls` shows for a name, sorted (local objects are `node/name`). */
async function listed(kind: 'volume' | 'network', name: string): Promise<string[]> {
  const out = await dockerOk(host, [kind, 'ls', '--filter', `name=${name}`, '--format', '{{.Name}}']);
  return out
    .split('\n')
    .filter((line) => line.endsWith(`/${name}`))
    .sort();
}

const node = (offset: number) => `node${FIRST + offset}`;
const everywhere = (name: string) => [0, 1, 2].map((offset) => `${node(offset)}/${name}`);

/** `docker run -d` of a sleeping container on one node, with more flags. */
async function runOnNode(offset: number, ...flags: string[]): Promise<string> {
  return (await dockerOk(host, ['run', '-d', '-e', `constraint:node==${node(offset)}`, ...flags, 'busybox:local', 'sleep', '300'])).trim();
}

describe('a bare name acts on every node’s copy, node/name on one (volumes)', () => {
  it('docker volume rm of a bare name removes every copy', async () => {
    await dockerOk(host, ['volume', 'create', 'accvol']);
    expect(await listed('volume', 'accvol')).toEqual(everywhere('accvol'));
    const removed = await docker(host, ['volume', 'rm', 'accvol']);
    expect(removed).toMatchObject({ code: 0, stdout: 'accvol\n', stderr: '' });
    expect(await listed('volume', 'accvol')).toEqual([]);
    for (const engine of testbed.engines)
      expect(await docker(`tcp://${engine.addr}`, ['volume', 'inspect', 'accvol'])).toMatchObject({ code: 1 });
  });

  it('node/name removes that copy only; a name on some nodes removes those', async () => {
    await dockerOk(host, ['volume', 'create', 'accvol2']);
    await dockerOk(host, ['volume', 'rm', `${node(1)}/accvol2`]);
    expect(await listed('volume', 'accvol2')).toEqual([`${node(0)}/accvol2`, `${node(2)}/accvol2`]);
    await dockerOk(host, ['volume', 'rm', 'accvol2']);
    expect(await listed('volume', 'accvol2')).toEqual([]);
  });

  it('a name on no node: 404 with classic’s words', async () => {
    const missing = await docker(host, ['volume', 'rm', 'nosuchvol']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Error response from daemon: No such volume: nosuchvol');
  });

  it('a copy that cannot go: the others are removed, and the error names its node', async () => {
    await dockerOk(host, ['volume', 'create', 'busyvol']);
    const holder = await runOnNode(1, '-v', 'busyvol:/data');
    const refused = await docker(host, ['volume', 'rm', 'busyvol']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`Error response from daemon: ${node(1)}: remove busyvol: volume is in use - [${holder}]`);
    expect(await listed('volume', 'busyvol')).toEqual([`${node(1)}/busyvol`]);
    await dockerOk(host, ['rm', '-f', holder]);
    await dockerOk(host, ['volume', 'rm', 'busyvol']);
  });
});

describe('the same rule for networks', () => {
  it('docker network rm of a bare name removes every node’s network of that name; node/name one', async () => {
    for (const offset of [0, 1, 2]) await dockerOk(host, ['network', 'create', `${node(offset)}/accnet`]);
    expect(await listed('network', 'accnet')).toEqual(everywhere('accnet'));
    await dockerOk(host, ['network', 'rm', `${node(2)}/accnet`]);
    expect(await listed('network', 'accnet')).toEqual([`${node(0)}/accnet`, `${node(1)}/accnet`]);
    const removed = await docker(host, ['network', 'rm', 'accnet']);
    expect(removed).toMatchObject({ code: 0, stdout: 'accnet\n' });
    expect(await listed('network', 'accnet')).toEqual([]);
    const missing = await docker(host, ['network', 'rm', 'accnet']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No such network: accnet');
  });

  it('a network in use on one node: the others are removed, and the error names that node', async () => {
    for (const offset of [0, 1]) await dockerOk(host, ['network', 'create', `${node(offset)}/busynet`]);
    const holder = await runOnNode(1, '--network', `${node(1)}/busynet`);
    const refused = await docker(host, ['network', 'rm', 'busynet']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`${node(1)}: error while removing network: network busynet id \\w+ has active endpoints`));
    expect(await listed('network', 'busynet')).toEqual([`${node(1)}/busynet`]);
    await dockerOk(host, ['rm', '-f', holder]);
    await dockerOk(host, ['network', 'rm', 'busynet']);
  });
});

describe('the same rule for images (docker tag, docker rmi)', () => {
  const tagged = async (reference: string): Promise<boolean[]> =>
    Promise.all(testbed.engines.map(async (engine) => (await dockerOk(`tcp://${engine.addr}`, ['images', '-q', reference])).trim() !== ''));

  it('tag and rmi of a bare name act on every copy, node/name on one', async () => {
    await dockerOk(host, ['tag', 'busybox:local', 'acc:v1']);
    expect(await tagged('acc:v1')).toEqual([true, true, true]);
    await dockerOk(host, ['tag', `${node(2)}/busybox:local`, 'acc:only2']);
    expect(await tagged('acc:only2')).toEqual([false, false, true]);
    const one = await dockerOk(host, ['rmi', `${node(0)}/acc:v1`]);
    expect(one.trim()).toBe('Untagged: acc:v1');
    expect(await tagged('acc:v1')).toEqual([false, true, true]);
    const rest = await dockerOk(host, ['rmi', 'acc:v1', 'acc:only2']);
    expect(rest.match(/Untagged: acc:v1/g)).toHaveLength(2);
    expect(await tagged('acc:v1')).toEqual([false, false, false]);
    expect(await tagged('acc:only2')).toEqual([false, false, false]);
  });

  it('an image on no node: 404 for rmi and tag', async () => {
    for (const args of [
      ['rmi', 'nosuch:img'],
      ['tag', 'nosuch:img', 'other:tag'],
    ]) {
      const missing = await docker(host, args);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('No such image: nosuch:img');
    }
  });

  it('rmi of an image one node cannot remove: the others are removed, and the error names that node', async () => {
    // setup: an image of one reference on each engine (its own commit), used by a container on the last node
    for (const engine of testbed.engines) {
      const direct = `tcp://${engine.addr}`;
      await dockerOk(direct, ['create', '--name', 'seed', 'busybox:local', 'true']);
      await dockerOk(direct, ['commit', 'seed', 'acc:single']);
      await dockerOk(direct, ['rm', 'seed']);
    }
    await eventually(async () => (await dockerOk(host, ['images', '-q', 'acc:single'])).trim().split('\n').length === 3);
    const user = (await dockerOk(host, ['create', '-e', `constraint:node==${node(2)}`, 'acc:single', 'true'])).trim();
    const refused = await docker(host, ['rmi', 'acc:single']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `${node(2)}: conflict: unable to remove repository reference "acc:single" \\(must force\\) - container ${user.slice(0, 12)} is using`,
      ),
    );
    expect(refused.stdout.match(/Untagged: acc:single/g)).toBeNull();
    expect(await tagged('acc:single')).toEqual([false, false, true]);
    await dockerOk(host, ['rm', user]);
    await dockerOk(host, ['rmi', 'acc:single']);
  });
});

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
