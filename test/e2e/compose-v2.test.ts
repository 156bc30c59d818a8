// Indexes 144-146 and ports
// 28912-28913, 28930-28939 belong to this file.
// `docker compose` v2.26 (Debian trixie's plugin, through a DOCKER_CONFIG of the test's own)
// against the manager, on two clusters: dockerd 20.10 and 26.1 engines together (the manager
// serves API 1.41, Compose connects extra networks after create) and a 26.1 engine alone (API
// 1.45, Compose creates containers on all their networks at once). docker-compose 1.29 keeps
// its own suite (api-compose.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type TestEngine, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';
import { lockEngineIndexes } from '../harness/index-lock.js';
import { dockerConfigWithPlugins, type DockerConfig } from '../harness/toolchain.js';
import { docker, dockerOk, tempDir, type CliResult } from './api-support.js';

let testbed: Testbed;
let config: DockerConfig;
let release: (() => Promise<void>) | undefined;
const managers: Manager[] = [];

beforeAll(async () => {
  release = await lockEngineIndexes(144, 540_000);
  config = dockerConfigWithPlugins();
  testbed = await startTestbed({ first: 144, count: 3, versions: { 146: '26.1' } });
}, 600_000);

afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
  await testbed?.stop();
  config?.remove();
  await release?.();
});

// stop_grace_period: sleep and httpd as PID 1 ignore SIGTERM, so every stop would wait 10 s
const COMPOSE_FILE = `
x-quick: &quick
  stop_grace_period: 1s
services:
  db:
    <<: *quick
    image: busybox:local
    command: sh -c 'sleep 2; touch /tmp/ready; exec sleep 600'
    healthcheck:
      test: ["CMD", "sh", "-c", "[ -f /tmp/ready ]"]
      interval: 1s
      retries: 30
    networks: [back]
    volumes: [data:/data]
  web:
    <<: *quick
    image: busybox:local
    command: httpd -f -p 80 -h /www
    ports: ["\${WEB_PORT}:80"]
    networks: [front, back]
    depends_on:
      db: { condition: service_healthy }
    configs: [{ source: site, target: /www/site.txt }]
    secrets: [token]
  worker:
    <<: *quick
    image: busybox:local
    command: sleep 600
    networks: [back]
    links: [db]
  job:
    <<: *quick
    image: busybox:local
    command: sh -c 'sleep 1; exit 3'
    profiles: [jobs]
  app:
    <<: *quick
    build: ./app
    command: sleep 600
    network_mode: bridge
    profiles: [built]
networks:
  front: {}
  back: {}
volumes:
  data: {}
configs:
  site:
    file: ./site.txt
secrets:
  token:
    file: ./token.txt
`;

interface Project {
  name: string;
  dir: string;
  host: string;
  port: number;
  compose(args: string[], env?: Record<string, string>): Promise<CliResult>;
  composeOk(args: string[], env?: Record<string, string>): Promise<string>;
}

function projectEnv(project: { name: string; host: string; port: number }): NodeJS.ProcessEnv {
  return { ...config.env, DOCKER_HOST: project.host, COMPOSE_PROJECT_NAME: project.name, WEB_PORT: String(project.port) };
}

function composeIn(project: Omit<Project, 'compose' | 'composeOk'>): Project {
  const compose = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    new Promise((resolve) => {
      // the project's name from the environment, not -p: with -p and no -f, `down` works from the
      // listed resources instead of the file, which the last test of each cluster checks on its own
      const child = spawn('docker', ['compose', ...args], { cwd: project.dir, env: { ...projectEnv(project), ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end();
      child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  return {
    ...project,
    compose,
    composeOk: async (args, env) => {
      const result = await compose(args, env);
      if (result.code !== 0)
        throw new Error(`docker compose ${args.join(' ')} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
      return result.stdout + result.stderr;
    },
  };
}

/** What an engine itself holds of a project, asked of the engine directly. */
async function leftOn(engine: TestEngine, project: string): Promise<string[]> {
  const host = `unix://${engine.socket}`;
  const label = `label=com.docker.compose.project=${project}`;
  const [containers, networks, volumes] = await Promise.all([
    dockerOk(host, ['ps', '-aq', '--filter', label]),
    dockerOk(host, ['network', 'ls', '-q', '--filter', label]),
    dockerOk(host, ['volume', 'ls', '-q', '--filter', label]),
  ]);
  return [
    ...containers
      .split('\n')
      .filter(Boolean)
      .map((id) => `container ${id}`),
    ...networks
      .split('\n')
      .filter(Boolean)
      .map((id) => `network ${id}`),
    ...volumes
      .split('\n')
      .filter(Boolean)
      .map((name) => `volume ${name}`),
  ];
}

async function inspect(host: string, format: string, ...names: string[]): Promise<string[]> {
  return (await dockerOk(host, ['inspect', '--format', format, ...names])).trim().split('\n');
}

/** The project's containers of a service: `id node` lines as the manager lists them. */
async function serviceContainers(project: Project, service: string): Promise<string[]> {
  const ids = (await project.composeOk(['ps', '-aq', service])).trim().split('\n').filter(Boolean);
  return ids.length === 0 ? [] : inspect(project.host, '{{.Id}} {{.Node.Name}}', ...ids);
}

async function fetchText(url: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await (await fetch(url)).text();
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const CLUSTERS = [
  { label: 'dockerd 20.10 and 26.1 engines (API 1.41)', name: 'cv41', managerPort: 28912, webPort: 28930, engines: [144, 145, 146] },
  { label: 'a dockerd 26.1 engine (API 1.45)', name: 'cv45', managerPort: 28913, webPort: 28931, engines: [146] },
];

describe.each(CLUSTERS)('docker compose v2 through the manager: $label', ({ name, managerPort, webPort, engines }) => {
  let project: Project;
  let remove: () => void = () => {};
  let engineIp = '';

  beforeAll(async () => {
    const chosen = testbed.engines.filter((engine) => engines.includes(engine.index));
    const manager = await startManager({
      discovery: chosen.map((engine) => engine.addr).join(','),
      port: managerPort,
      expectNodes: chosen.length,
    });
    managers.push(manager);
    const dir = await tempDir(`swarm-compose-v2-${name}-`);
    remove = dir.remove;
    writeFileSync(join(dir.path, 'compose.yaml'), COMPOSE_FILE);
    writeFileSync(join(dir.path, 'site.txt'), `site config of ${name}\n`);
    writeFileSync(join(dir.path, 'token.txt'), `secret token of ${name}\n`);
    writeFileSync(join(dir.path, 'copied.txt'), 'copied in\n');
    mkdirSync(join(dir.path, 'app'));
    writeFileSync(join(dir.path, 'app', 'Dockerfile'), 'FROM busybox:local\nRUN echo built > /built.txt\n');
    project = composeIn({ name, dir: dir.path, host: manager.host, port: webPort });
  }, 120_000);

  afterAll(async () => {
    await project?.compose(['--profile', 'jobs', '--profile', 'built', 'down', '-v', '--rmi', 'local', '--remove-orphans']);
    remove();
  });

  it('up: the project runs where its networks are, db healthy before web starts, configs and secrets mounted', async () => {
    const out = await project.composeOk(['up', '-d']);
    expect(out).toMatch(/db-1\s+Healthy/);
    // the names Compose shows and links by are the engine's, as on one engine
    const shown = (await project.composeOk(['ps', '--format', '{{.Name}}'])).trim().split('\n').sort();
    expect(shown).toEqual([`${name}-db-1`, `${name}-web-1`, `${name}-worker-1`]);
    const placed = [
      ...(await serviceContainers(project, 'db')),
      ...(await serviceContainers(project, 'web')),
      ...(await serviceContainers(project, 'worker')),
    ];
    expect(placed).toHaveLength(3);
    const nodes = new Set(placed.map((line) => line.split(' ')[1]));
    // every service shares the back network, which lives on one engine
    expect(nodes.size).toBe(1);
    const [node] = [...nodes];
    engineIp = testbed.engines.find((engine) => engine.name === node)!.host;
    // db is healthy 2 s after it starts at the earliest: web waited for it
    const [dbStarted, webStarted] = await inspect(project.host, '{{.State.StartedAt}}', `${name}-db-1`, `${name}-web-1`);
    expect(Date.parse(webStarted!) - Date.parse(dbStarted!)).toBeGreaterThanOrEqual(1500);
    expect(await fetchText(`http://${engineIp}:${webPort}/index.html`)).toBe('hello from busybox:local\n');
    expect(await fetchText(`http://${engineIp}:${webPort}/site.txt`)).toBe(`site config of ${name}\n`);
    expect((await project.composeOk(['exec', '-T', 'web', 'cat', '/run/secrets/token'])).trim()).toBe(`secret token of ${name}`);
  });

  it('port, top, cp and pause answer as on one engine', async () => {
    expect((await project.composeOk(['port', 'web', '80'])).trim()).toBe(`${engineIp}:${webPort}`);
    expect(await project.composeOk(['top', 'web'])).toMatch(/httpd -f -p 80 -h \/www/);
    await project.composeOk(['cp', 'copied.txt', 'worker:/tmp/copied.txt']);
    expect((await project.composeOk(['exec', '-T', 'worker', 'cat', '/tmp/copied.txt'])).trim()).toBe('copied in');
    await project.composeOk(['cp', 'worker:/tmp/copied.txt', 'copied-back.txt']);
    expect(readFileSync(join(project.dir, 'copied-back.txt'), 'utf8')).toBe('copied in\n');
    await project.composeOk(['pause', 'worker']);
    expect((await inspect(project.host, '{{.State.Status}}', `${name}-worker-1`))[0]).toBe('paused');
    await project.composeOk(['unpause', 'worker']);
    expect((await inspect(project.host, '{{.State.Status}}', `${name}-worker-1`))[0]).toBe('running');
  });

  it('events: a restart of worker shows in the project event stream', async () => {
    const events: ChildProcess = spawn('docker', ['compose', 'events', '--json'], { cwd: project.dir, env: projectEnv(project) });
    let seen = '';
    events.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await project.composeOk(['restart', 'worker']);
      for (let i = 0; i < 50 && !/"service":"worker"[^\n]*"action":"start"|"action":"start"[^\n]*"service":"worker"/.test(seen); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(seen).toMatch(/"action":"start"/);
      expect(seen).toMatch(/"service":"worker"/);
    } finally {
      events.kill();
    }
  });

  it('--no-recreate keeps every container, --force-recreate replaces them on the port and networks they had', async () => {
    const before = [...(await serviceContainers(project, 'web')), ...(await serviceContainers(project, 'db'))];
    await project.composeOk(['up', '-d', '--no-recreate']);
    expect([...(await serviceContainers(project, 'web')), ...(await serviceContainers(project, 'db'))]).toEqual(before);
    await project.composeOk(['up', '-d', '--force-recreate']);
    const after = [...(await serviceContainers(project, 'web')), ...(await serviceContainers(project, 'db'))];
    expect(after).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(after[i]!.split(' ')[0]).not.toBe(before[i]!.split(' ')[0]);
      expect(after[i]!.split(' ')[1]).toBe(before[i]!.split(' ')[1]);
    }
    expect(await fetchText(`http://${engineIp}:${webPort}/index.html`)).toBe('hello from busybox:local\n');
    // the replaced containers are gone, the replacements carry the service's own names
    const names = (await project.composeOk(['ps', '-a', '--format', '{{.Service}}'])).trim().split('\n').sort();
    expect(names).toEqual(['db', 'web', 'worker']);
  });

  it('scales a service up and down', async () => {
    await project.composeOk(['up', '-d', '--no-recreate', '--scale', 'worker=3']);
    expect(await serviceContainers(project, 'worker')).toHaveLength(3);
    await project.composeOk(['up', '-d', '--no-recreate', '--scale', 'worker=1']);
    expect(await serviceContainers(project, 'worker')).toHaveLength(1);
  });

  it('run --rm prints the command output and leaves no container', async () => {
    const out = await project.composeOk(['run', '--rm', '-T', 'worker', 'echo', 'ran once']);
    expect(out).toContain('ran once');
    // compose removes the one-off as it exits; the manager hears of it from the engine's events
    let oneOff = '';
    for (let waited = 0; waited < 10_000; waited += 250) {
      oneOff = (
        await dockerOk(project.host, [
          'ps',
          '-aq',
          '--filter',
          `label=com.docker.compose.project=${name}`,
          '--filter',
          'label=com.docker.compose.oneoff=True',
        ])
      ).trim();
      if (oneOff === '') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(oneOff).toBe('');
  });

  it('profiles: a profile service starts only when asked, and wait gives its exit code', async () => {
    expect(await serviceContainers(project, 'job')).toEqual([]);
    await project.composeOk(['--profile', 'jobs', 'up', '-d', 'job']);
    const waited = await project.compose(['--profile', 'jobs', 'wait', 'job']);
    expect(waited.code).toBe(3);
  });

  it('builds a service image (classic builder) and down --rmi local removes it from every engine', async () => {
    await project.composeOk(['--profile', 'built', 'up', '-d', 'app'], { DOCKER_BUILDKIT: '0' });
    expect((await project.composeOk(['--profile', 'built', 'exec', '-T', 'app', 'cat', '/built.txt'])).trim()).toBe('built');
    const image = `${name}-app`;
    expect((await dockerOk(project.host, ['image', 'ls', '-q', image])).trim()).not.toBe('');
    await project.composeOk(['--profile', 'built', 'down', '--rmi', 'local']);
    for (const engine of testbed.engines) {
      expect((await dockerOk(`unix://${engine.socket}`, ['image', 'ls', '-q', image])).trim()).toBe('');
    }
  });

  it('up --build of a fresh project: the built service runs on the project network, where it was built', async () => {
    const dir = await tempDir(`swarm-compose-v2-${name}b-`);
    mkdirSync(join(dir.path, 'app'));
    writeFileSync(join(dir.path, 'app', 'Dockerfile'), 'FROM busybox:local\nRUN echo built > /built.txt\n');
    writeFileSync(
      join(dir.path, 'compose.yaml'),
      'services:\n  app: { build: ./app, command: sleep 600, stop_grace_period: 1s }\n  peer: { image: busybox:local, command: sleep 600, stop_grace_period: 1s }\n',
    );
    const fresh = composeIn({ name: `${name}b`, dir: dir.path, host: project.host, port: webPort });
    try {
      await fresh.composeOk(['up', '-d', '--build'], { DOCKER_BUILDKIT: '0' });
      const states = (await fresh.composeOk(['ps', '--format', '{{.Service}} {{.State}}'])).trim().split('\n').sort();
      expect(states).toEqual(['app running', 'peer running']);
      expect((await fresh.composeOk(['exec', '-T', 'app', 'cat', '/built.txt'])).trim()).toBe('built');
    } finally {
      await fresh.compose(['down', '-v', '--rmi', 'local']);
      dir.remove();
    }
    for (const engine of testbed.engines) {
      expect(await leftOn(engine, `${name}b`)).toEqual([]);
      expect((await dockerOk(`unix://${engine.socket}`, ['image', 'ls', '-q', `${name}b-app`])).trim()).toBe('');
    }
  });

  it('down -v removes containers, networks and volumes on every engine', async () => {
    await project.composeOk(['up', '-d']);
    const out = await project.composeOk(['--profile', 'jobs', 'down', '-v']);
    expect(out).not.toContain('No resource found');
    for (const engine of testbed.engines) expect(await leftOn(engine, name)).toEqual([]);
  });

  it('down with the project name only (no compose file) removes everything too', async () => {
    await project.composeOk(['up', '-d']);
    const elsewhere = join(project.dir, 'app');
    const result = await docker(project.host, ['compose', '-p', name, 'down', '-v'], {
      cwd: elsewhere,
      env: { ...(config.env as Record<string, string>) },
    });
    expect(result.code).toBe(0);
    for (const engine of testbed.engines) expect(await leftOn(engine, name)).toEqual([]);
  });
});

describe('a local network is a hard requirement', () => {
  it('a container joining a project network is refused when the network’s node cannot take it', async () => {
    const host = managers[0]!.host;
    const project = 'cvhard';
    await dockerOk(host, ['network', 'create', '--label', `com.docker.compose.project=${project}`, `${project}_default`]);
    try {
      const node = (await dockerOk(host, ['network', 'ls', '--filter', `name=${project}_default`, '--format', '{{.Name}}']))
        .trim()
        .split('/')[0]!;
      await dockerOk(host, [
        'run',
        '-d',
        '--name',
        `${project}-holder`,
        '-e',
        `constraint:node==${node}`,
        '-p',
        '28932:80',
        'busybox:local',
        'sleep',
        '600',
      ]);
      const refused = await docker(host, [
        'run',
        '-d',
        '--name',
        `${project}-blocked`,
        '--network',
        `${project}_default`,
        '-p',
        '28932:80',
        'busybox:local',
        'sleep',
        '600',
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('0/3 nodes are available: 1 port 28932 (Bridge mode), 2 constraint node==' + node + '.');
    } finally {
      await docker(host, ['rm', '-f', `${project}-holder`, `${project}-blocked`]);
      await docker(host, ['network', 'rm', `${project}_default`]);
    }
  });
});
