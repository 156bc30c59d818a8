import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startManager, type Manager } from '../harness/manager.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { docker } from './driver-swarm-support.js';

// engines 19-21, swarm manage on 127.0.0.1:23310, a docker-registry on 127.0.0.1:23320
const FIRST = 19;
const REGISTRY = '127.0.0.1:23320';

async function startRegistry(dir: string): Promise<ChildProcess> {
  const config = join(dir, 'registry.yml');
  writeFileSync(config, `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: ${REGISTRY}\n`);
  const child = spawn('docker-registry', ['serve', config], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://${REGISTRY}/v2/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('docker-registry did not answer within 15 s');
}

describe('swarm manage with the swarm driver, driven by the docker CLI', () => {
  let testbed: Testbed;
  let manager: Manager;
  let registry: ChildProcess | undefined;
  let dir: string;
  const swarm = (...args: string[]) => docker(manager.host, ...args);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'swarm-registry-'));
    testbed = await startTestbed({ first: FIRST, count: 3, labels: ['disk=ssd'] });
    manager = await startManager({
      discovery: `nodes://127.0.0.[${FIRST + 1}:${FIRST + 3}]:2375`,
      port: 23310,
      expectNodes: 3,
      args: ['--engine-refresh-min-interval', '1s', '--engine-refresh-max-interval', '2s'],
    });
  });

  afterAll(async () => {
    await manager?.stop();
    registry?.kill('SIGKILL');
    await testbed?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('docker info shows the classic rows for every node', async () => {
    const info = await swarm('info');
    expect(info).toMatch(
      /Role: primary\n\s*Strategy: spread\n\s*Filters: health, port, containerslots, dependency, affinity, constraint, whitelist\n\s*Nodes: 3\n/,
    );
    for (const index of [FIRST, FIRST + 1, FIRST + 2]) expect(info).toContain(`node${index}: 127.0.0.${index + 1}:2375`);
    expect(info).toMatch(/└ Labels: disk=ssd, kernelversion=.*, storagedriver=vfs/);
    expect(info.match(/└ Status: Healthy/g)).toHaveLength(3);
  });

  it('docker run reserves resources, docker ps names the node, a second --name is refused', async () => {
    const id = await swarm(
      'run',
      '-d',
      '--name',
      'cli-web',
      '-m',
      '64m',
      '-c',
      '1',
      '-e',
      'constraint:disk==ssd',
      'busybox:local',
      'sleep',
      '300',
    );
    const row = await swarm('ps', '--filter', 'name=cli-web', '--format', '{{.ID}} {{.Names}}');
    expect(row).toMatch(new RegExp(`^${id.slice(0, 12)} node(${FIRST}|${FIRST + 1}|${FIRST + 2})/cli-web$`));
    const node = row.split(' ')[1]!.split('/')[0]!;
    expect(await swarm('info')).toMatch(
      new RegExp(
        `${node}: [\\d.:]+\\n\\s*└ ID: \\S+\\n\\s*└ Status: Healthy\\n\\s*└ Containers: 1 \\(1 Running, 0 Paused, 0 Stopped\\)\\n\\s*└ Reserved CPUs: 1 / \\d+\\n\\s*└ Reserved Memory: 64 MiB / `,
      ),
    );
    await expect(swarm('run', '-d', '--name', 'cli-web', 'busybox:local', 'true')).rejects.toThrow(
      'Conflict: The name cli-web is already assigned. You have to delete (or rename) that container to be able to assign cli-web to a container again.',
    );
    expect(await swarm('inspect', '-f', '{{.Id}}', `${node}/cli-web`)).toBe(id);
    await swarm('rm', '-f', 'cli-web');
    expect(await swarm('ps', '-a', '-q', '--filter', 'name=cli-web')).toBe('');
  });

  it('docker tag and rmi reach every engine', async () => {
    await swarm('tag', 'busybox:local', 'cli-fanout:v1');
    for (const engine of testbed.engines) expect(await docker(`tcp://${engine.addr}`, 'images', '-q', 'cli-fanout:v1')).not.toBe('');
    const untagged = await swarm('rmi', 'cli-fanout:v1');
    expect(untagged.match(/Untagged: cli-fanout:v1/g)).toHaveLength(3);
    for (const engine of testbed.engines) expect(await docker(`tcp://${engine.addr}`, 'images', '-q', 'cli-fanout:v1')).toBe('');
  });

  it('docker pull from a local registry lands on every engine', async () => {
    registry = await startRegistry(dir);
    const source = `tcp://${testbed.engines[0]!.addr}`;
    await docker(source, 'tag', 'busybox:local', `${REGISTRY}/tools/busybox:1`);
    await docker(source, 'push', `${REGISTRY}/tools/busybox:1`);
    await docker(source, 'rmi', `${REGISTRY}/tools/busybox:1`);
    const output = await swarm('pull', `${REGISTRY}/tools/busybox:1`);
    expect(output).toContain(`${REGISTRY}/tools/busybox:1`);
    for (const engine of testbed.engines) {
      expect(await docker(`tcp://${engine.addr}`, 'images', '-q', `${REGISTRY}/tools/busybox:1`)).not.toBe('');
    }
    expect((await swarm('images', '--format', '{{.Repository}}:{{.Tag}}')).split('\n')).toContain(`${REGISTRY}/tools/busybox:1`);
  });

  it('docker run of an image no engine has: the CLI pulls through swarm, then the create succeeds', async () => {
    const source = `tcp://${testbed.engines[1]!.addr}`;
    await docker(source, 'tag', 'busybox:local', `${REGISTRY}/tools/busybox:2`);
    await docker(source, 'push', `${REGISTRY}/tools/busybox:2`);
    await docker(source, 'rmi', `${REGISTRY}/tools/busybox:2`);
    const id = await swarm('run', '-d', '--name', 'pulled-on-run', `${REGISTRY}/tools/busybox:2`, 'true');
    expect(await swarm('inspect', '-f', '{{.Config.Image}}', 'pulled-on-run')).toBe(`${REGISTRY}/tools/busybox:2`);
    expect(id).toMatch(/[0-9a-f]{64}$/);
    await swarm('rm', '-f', 'pulled-on-run');
  });
});
