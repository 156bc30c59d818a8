import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerOk, pty, sleep, startApiCluster, tempDir, type ApiCluster } from './api-support.js';

// Engines 32-34 behind `swarm manage` on port 23401: the docker CLI sees one big engine.
let cluster: ApiCluster;
let host: string;

beforeAll(async () => {
  cluster = await startApiCluster(32, 3, 23401);
  host = cluster.host;
});

afterAll(async () => {
  await cluster?.stop();
});

describe('docker info and version', () => {
  it('prints Swarm classic rows and our version', async () => {
    const info = await dockerOk(host, ['info']);
    expect(info).toContain('Server Version: swarm/');
    expect(info).toMatch(/ Nodes: 3\n/);
    expect(info.match(/└ Status: Healthy/g)).toHaveLength(3);
    expect(info).toMatch(/ node32: 127\.0\.0\.33:2375/);
    expect((await dockerOk(host, ['version', '--format', '{{.Server.APIVersion}}'])).trim()).toBe('1.41');
  });
});

describe('container lifecycle with the docker CLI', () => {
  it('spreads containers and lists them as /node/name with filters', async () => {
    for (const name of ['life-a', 'life-b', 'life-c']) {
      await dockerOk(host, [
        'run',
        '-d',
        '--name',
        name,
        '--label',
        'suite=life',
        'busybox:local',
        'sh',
        '-c',
        `echo started ${name}; sleep 600`,
      ]);
    }
    const names = (await dockerOk(host, ['ps', '--filter', 'label=suite=life', '--format', '{{.Names}}'])).trim().split('\n').sort();
    expect(names.map((name) => name.split('/')[0]).sort()).toEqual(['node32', 'node33', 'node34']);
    expect(names.map((name) => name.split('/')[1]).sort()).toEqual(['life-a', 'life-b', 'life-c']);
    const onNode = await dockerOk(host, ['ps', '--filter', `node=${names[0]!.split('/')[0]}`, '--format', '{{.Names}}']);
    expect(onNode.trim()).toBe(names[0]);
    expect((await dockerOk(host, ['ps', '-q', '--filter', 'name=life-b'])).trim()).toMatch(/^[0-9a-f]{12}$/);
  });

  it('inspects with the Node object and reaches containers by node/name', async () => {
    const [inspect] = JSON.parse(await dockerOk(host, ['inspect', 'life-a'])) as Array<{
      Name: string;
      Node: { Name: string; Addr: string; IP: string };
    }>;
    expect(inspect!.Name).toBe('/life-a');
    expect(inspect!.Node.Addr).toBe(`${inspect!.Node.IP}:2375`);
    const logs = await dockerOk(host, ['logs', `${inspect!.Node.Name}/life-a`]);
    expect(logs).toBe('started life-a\n');
  });

  it('pauses, unpauses, renames, updates, restarts, kills and waits', async () => {
    await dockerOk(host, ['pause', 'life-a']);
    expect((await dockerOk(host, ['inspect', '-f', '{{.State.Status}}', 'life-a'])).trim()).toBe('paused');
    await dockerOk(host, ['unpause', 'life-a']);
    await dockerOk(host, ['rename', 'life-a', 'life-renamed']);
    expect((await dockerOk(host, ['inspect', '-f', '{{.Name}}', 'life-renamed'])).trim()).toBe('/life-renamed');
    await dockerOk(host, ['update', '--memory', '64m', '--memory-swap', '128m', 'life-renamed']);
    expect((await dockerOk(host, ['inspect', '-f', '{{.HostConfig.Memory}}', 'life-renamed'])).trim()).toBe(String(64 * 1024 * 1024));
    await dockerOk(host, ['restart', '-t', '1', 'life-renamed']);
    // the restarted process prints its line a moment after the restart returns
    let starts = 0;
    for (let waited = 0; waited < 10_000 && starts < 2; waited += 200) {
      starts = ((await dockerOk(host, ['logs', 'life-renamed'])).match(/started life-a/g) ?? []).length;
      if (starts < 2) await sleep(200);
    }
    expect(starts).toBe(2);
    const waiting = docker(host, ['wait', 'life-b']);
    await sleep(300);
    await dockerOk(host, ['kill', '-s', 'KILL', 'life-b']);
    const waited = await waiting;
    expect(waited.stdout.trim()).toBe('137');
    await sleep(500);
    const exited = await dockerOk(host, ['ps', '-a', '--filter', 'exited=137', '--format', '{{.Names}}']);
    expect(exited.trim()).toMatch(/^node3\d\/life-b$/);
  });

  it('reports the engine errors clients expect', async () => {
    const missing = await docker(host, ['stop', 'no-such-container']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No such container: no-such-container');
    const conflict = await docker(host, ['run', '-d', '--name', 'life-c', 'busybox:local', 'true']);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toMatch(/Conflict/);
    const running = await docker(host, ['rm', 'life-c']);
    expect(running.code).not.toBe(0);
    expect(running.stderr).toMatch(/stop the container before removing|cannot remove/i);
  });

  // `docker run -d` answers once the engine started the container (the re-read of a container
  // that exits at once waits for dockerd's teardown): a `ps` right after must still see it started.
  it('lists a container as started right after `docker run -d`, and one whose start failed as created', async () => {
    for (let round = 0; round < 3; round++) {
      const id = (await dockerOk(host, ['run', '-d', '--label', 'suite=instant', 'busybox:local', 'true'])).trim();
      const state = (await dockerOk(host, ['ps', '-a', '--filter', `id=${id}`, '--format', '{{.State}}'])).trim();
      expect(['running', 'exited']).toContain(state);
    }
    const failed = await docker(host, ['run', '-d', '--label', 'suite=instant', 'busybox:local', 'no-such-command']);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('executable file not found');
    expect(
      (
        await dockerOk(host, ['ps', '-a', '--filter', 'label=suite=instant', '--filter', 'status=created', '--format', '{{.Command}}'])
      ).trim(),
    ).toBe('"no-such-command"');
    let exited = '';
    for (let attempt = 0; attempt < 50 && exited.split('\n').length < 3; attempt++) {
      await sleep(100);
      exited = (
        await dockerOk(host, ['ps', '-a', '--filter', 'label=suite=instant', '--filter', 'status=exited', '--format', '{{.Status}}'])
      ).trim();
    }
    const lines = exited.split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^Exited \(0\) /);
  });

  it('removes with force and volumes', async () => {
    await dockerOk(host, ['rm', '-f', '-v', 'life-b', 'life-c']);
    const left = await dockerOk(host, ['ps', '-a', '--filter', 'label=suite=life', '--format', '{{.Names}}']);
    expect(left.trim()).toMatch(/\/life-renamed$/);
  });
});

describe('interactive sessions through a pty', () => {
  // busybox sh prints its prompt only once the terminal answered its cursor query, which the
  // first keystrokes do: so type first, then look for what only the shell can print.
  it('runs `docker run -it` with a shell', async () => {
    const session = pty(`docker -H ${host} run -it --rm --name tty-run busybox:local sh`);
    await sleep(1500);
    session.write('echo tty-$((6*7))\r');
    await session.waitFor(/tty-42/);
    session.write('exit 5\r');
    expect(await session.exited).toBe(5);
  });

  it('attaches to a running container, types into it and sees its exit', async () => {
    await dockerOk(host, ['run', '-dit', '--name', 'tty-attach', 'busybox:local', 'sh']);
    await dockerOk(host, ['run', '-dit', '--name', 'tty-exit', 'busybox:local', 'sh']);
    const session = pty(`docker -H ${host} attach tty-exit`);
    await sleep(1000);
    session.write('echo attached-$((2*21))\r');
    await session.waitFor(/attached-42/);
    session.write('exit 3\r');
    expect(await session.exited).toBe(3);
    expect((await dockerOk(host, ['inspect', '-f', '{{.State.Status}}', 'tty-exit'])).trim()).toBe('exited');
  });

  it('runs `docker exec -it` in a running container', async () => {
    const session = pty(`docker -H ${host} exec -it tty-attach sh`);
    await sleep(1000);
    session.write('echo exec-$((3*3)); exit 4\r');
    await session.waitFor(/exec-9/);
    expect(await session.exited).toBe(4);
  });

  it('pipes stdin through a non-tty `docker run -i` and ends on EOF', async () => {
    const result = await docker(host, ['run', '-i', '--rm', 'busybox:local', 'wc', '-l'], { input: 'a\nb\nc\n' });
    expect(result.stdout.trim()).toBe('3');
  });
});

describe('files, logs and stats', () => {
  it('copies files both ways and exports the filesystem', async () => {
    const dir = await tempDir('swarm-e2e-cp-');
    writeFileSync(join(dir.path, 'note.txt'), 'from the host\n');
    await dockerOk(host, ['cp', join(dir.path, 'note.txt'), 'tty-attach:/tmp/note.txt']);
    expect(await dockerOk(host, ['exec', 'tty-attach', 'cat', '/tmp/note.txt'])).toBe('from the host\n');
    await dockerOk(host, ['exec', 'tty-attach', 'sh', '-c', 'echo from the container > /tmp/back.txt']);
    await dockerOk(host, ['cp', 'tty-attach:/tmp/back.txt', join(dir.path, 'back.txt')]);
    expect(readFileSync(join(dir.path, 'back.txt'), 'utf8')).toBe('from the container\n');
    await dockerOk(host, ['export', '-o', join(dir.path, 'fs.tar'), 'tty-attach']);
    expect(readFileSync(join(dir.path, 'fs.tar')).length).toBeGreaterThan(1_000_000);
    dir.remove();
  });

  it('follows logs as they are written, with timestamps and tail', async () => {
    await dockerOk(host, [
      'run',
      '-d',
      '--name',
      'logger',
      'busybox:local',
      'sh',
      '-c',
      'i=0; while true; do i=$((i+1)); echo line-$i; sleep 0.2; done',
    ]);
    const follower = spawn('docker', ['-H', host, 'logs', '-f', '--tail', '1', '--timestamps', 'logger']);
    let seen = '';
    follower.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await sleep(2000);
    follower.kill();
    const lines = seen.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines[lines.length - 1]).toMatch(/^\d{4}-\d\d-\d\dT\S+ line-\d+$/);
  });

  it('shows stats once', async () => {
    const stats = await dockerOk(host, ['stats', '--no-stream', '--format', '{{.Name}} {{.MemUsage}}', 'logger']);
    expect(stats.trim()).toMatch(/^logger \S+/);
  });
});

describe('events', () => {
  it('replays past events with node info, filtered, until a time', async () => {
    const until = Math.floor(Date.now() / 1000) + 1;
    const out = await dockerOk(host, [
      'events',
      '--since',
      '5m',
      '--until',
      String(until),
      '--filter',
      'event=rename',
      '--format',
      '{{json .}}',
    ]);
    const events = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { Action: string; Actor: { Attributes: Record<string, string> } });
    expect(events).toHaveLength(1);
    expect(events[0]!.Actor.Attributes.name).toBe('life-renamed');
    expect(events[0]!.Actor.Attributes['node.name']).toMatch(/^node3[234]$/);
  });
});
