import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { startAccessCluster, type AccessCluster, type Person } from './access-support.js';

/*
 * Issue 44 item 2: `swarm schedule --explain` and `/_swarm/v1/explain` are a dry run of what a
 * `docker run` goes through (authentication, authorization as `container.create` with the body,
 * admission, scheduling), stopping before the engine. Each caller's explain is compared with the
 * same caller's real `docker run`: the same refusal text at the same stage, exit 1 for a refusal,
 * and nothing made by the dry run.
 *
 * Engines 162-163; manager on 29030.
 */

const PORT = 29030;
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));
let cluster: AccessCluster;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `swarm schedule --explain` as a person: their certificate in the docker CLI's environment variables. */
function explainAs(person: Person, args: string[]): Promise<Run> {
  const certs = join(cluster.dir, `cli-${person}`);
  mkdirSync(certs, { recursive: true });
  copyFileSync(join(cluster.dir, 'ca.pem'), join(certs, 'ca.pem'));
  copyFileSync(join(cluster.dir, `${person}-cert.pem`), join(certs, 'cert.pem'));
  copyFileSync(join(cluster.dir, `${person}-key.pem`), join(certs, 'key.pem'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SWARM, 'schedule', '--explain', '-H', `tcp://127.0.0.1:${PORT}`, ...args],
      { env: { ...process.env, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs, DOCKER_HOST: '' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 99) : 0, stdout, stderr }),
    );
  });
}

/** What `docker run` as the same person answers: the daemon's refusal text. */
async function runRefusal(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, ['run', '-d', '--pull', 'never', ...args]);
  expect(result.code, `docker run ${args.join(' ')} as ${person} was not refused: ${result.stdout}`).not.toBe(0);
  const match = /Error response from daemon: (.*)$/m.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return match![1]!.trim();
}

async function containerCount(): Promise<number> {
  const answer = await cluster.call('admin', 'GET', '/containers/json?all=1');
  return (JSON.parse(answer.text) as unknown[]).length;
}

beforeAll(async () => {
  cluster = await startAccessCluster({ firstEngine: 162, engines: 2, port: PORT });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('explain is a dry run of the pipeline a docker run goes through', () => {
  it('places what every stage allows: exit 0, a chosen node', async () => {
    const placed = await explainAs('alice', ['busybox:local', 'true']);
    expect(placed.code, placed.stderr).toBe(0);
    expect(placed.stdout).toMatch(/^Chosen: /m);
  });

  it("is refused at admission with the create's own text, exit 1", async () => {
    const before = await containerCount();
    const refusal = await runRefusal('alice', ['--net', 'host', 'busybox:local', 'true']);
    expect(refusal).toBe('admission policy "baseline" forbids HostConfig.NetworkMode=host');
    const explained = await explainAs('alice', ['--net', 'host', 'busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(1);
    expect(explained.stdout).toContain('Refused by admission, before scheduling (docker run gets 403 SWARM_ERR_PERMISSION_DENIED):');
    expect(explained.stdout).toContain(`Error: ${refusal}\n`);
    // bob's level is restricted: his explain is judged by his binding, as his run is
    const bobs = await runRefusal('bob', ['busybox:local', 'true']);
    const bobExplained = await explainAs('bob', ['busybox:local', 'true']);
    expect(bobExplained.code).toBe(1);
    expect(bobExplained.stdout).toContain(`Refused by admission`);
    expect(bobExplained.stdout).toContain(`Error: ${bobs}\n`);
    expect(await containerCount()).toBe(before);
  });

  it("is refused at authorization (container.create with its body) with the create's own text, exit 1", async () => {
    // the auditors may view and explain, not create
    const refusal = await runRefusal('viewer', ['busybox:local', 'true']);
    const explained = await explainAs('viewer', ['busybox:local', 'true']);
    expect(explained.code, explained.stdout + explained.stderr).toBe(1);
    expect(explained.stdout).toContain('Refused by authorization, before scheduling (docker run gets 403 SWARM_ERR_PERMISSION_DENIED):');
    expect(explained.stdout).toContain(`Error: ${refusal}\n`);
  });

  it('answers the same over the API, as JSON, with the stage, code and status', async () => {
    const answer = await cluster.call('alice', 'POST', '/_swarm/v1/explain', { Image: 'busybox:local', HostConfig: { Privileged: true } });
    expect(answer.status).toBe(200);
    const explanation = JSON.parse(answer.text) as PlacementExplanation;
    expect(explanation).toMatchObject({
      nodes: [],
      error: 'admission policy "baseline" forbids HostConfig.Privileged',
      refused: { stage: 'admission', code: 'SWARM_ERR_PERMISSION_DENIED', status: 403 },
    });
    const allowed = JSON.parse(
      (await cluster.call('alice', 'POST', '/_swarm/v1/explain', { Image: 'busybox:local' })).text,
    ) as PlacementExplanation;
    expect(allowed.refused).toBeUndefined();
    expect(allowed.chosen).toBeDefined();
  });

  it('stops before the engine: a named volume the create would make is not made', async () => {
    const answer = await cluster.call('alice', 'POST', '/_swarm/v1/explain', {
      Image: 'busybox:local',
      HostConfig: { Binds: ['explain-dry-run-volume:/data'] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect((JSON.parse(answer.text) as PlacementExplanation).chosen).toBeDefined();
    const volumes = JSON.parse((await cluster.call('admin', 'GET', '/volumes')).text) as { Volumes: Array<{ Name: string }> | null };
    expect((volumes.Volumes ?? []).map((volume) => volume.Name)).not.toContain('explain-dry-run-volume');
  });

  it('is an error, exit 2, for a caller who may not explain at all', async () => {
    const explained = await explainAs('outsider', ['busybox:local', 'true']);
    expect(explained.code).toBe(2);
    expect(explained.stderr).toMatch(/^manager answered 403: /);
  });
});
