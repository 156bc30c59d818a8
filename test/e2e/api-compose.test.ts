import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOk, startApiCluster, tempDir, type ApiCluster } from './api-support.js';

// Engines 38-39 behind `swarm manage` on port 23403, driven by docker-compose 1.29.
let cluster: ApiCluster;
let project: { path: string; remove(): void };

const COMPOSE_FILE = `version: "2.4"
services:
  web:
    image: busybox:local
    command: httpd -f -p 80 -h /www
  worker:
    image: busybox:local
    command: sh -c 'echo worker ready; sleep 600'
`;

function compose(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, COMPOSE_HTTP_TIMEOUT: '60', COMPOSE_PROJECT_NAME: 'apic' };
  delete env.DOCKER_API_VERSION;
  return new Promise((resolve) => {
    const child = spawn('docker-compose', ['-H', cluster.host, ...args], { cwd: project.path, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function composeOk(args: string[]): Promise<string> {
  const result = await compose(args);
  if (result.code !== 0) throw new Error(`docker-compose ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return result.stdout + result.stderr;
}

beforeAll(async () => {
  [cluster, project] = await Promise.all([startApiCluster(38, 2, 23403), tempDir('swarm-compose-')]);
  writeFileSync(join(project.path, 'docker-compose.yml'), COMPOSE_FILE);
});

afterAll(async () => {
  await cluster?.stop();
  project?.remove();
});

describe('docker-compose 1.29 against the manager', () => {
  it('brings a 2-service project up and lists it', async () => {
    await composeOk(['up', '-d']);
    const ps = await composeOk(['ps']);
    expect(ps).toMatch(/apic_web_1\s.*Up/);
    expect(ps).toMatch(/apic_worker_1\s.*Up/);
  });

  it('scales a service and shows its logs', async () => {
    await composeOk(['up', '-d', '--scale', 'worker=3']);
    const names = (await dockerOk(cluster.host, ['ps', '--filter', 'label=com.docker.compose.service=worker', '--format', '{{.Names}}']))
      .trim()
      .split('\n');
    expect(names).toHaveLength(3);
    const logs = await composeOk(['logs', '--no-color', 'worker']);
    expect(logs.match(/worker ready/g)).toHaveLength(3);
  });

  it('takes everything down again', async () => {
    await composeOk(['down']);
    const left = await dockerOk(cluster.host, ['ps', '-a', '--filter', 'label=com.docker.compose.project=apic', '-q']);
    expect(left.trim()).toBe('');
    const networks = await dockerOk(cluster.host, ['network', 'ls', '--filter', 'name=apic_default', '-q']);
    expect(networks.trim()).toBe('');
  });
});
