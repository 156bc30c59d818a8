import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessConfig, startAccessCluster, type AccessCluster, type Person } from './access-support.js';

// Index 182 and ports 28700-28709 belong to this file.
//
// Oracles: answers that would tell alice (team a) whether bob (team b) has an object. For each, the
// answer for bob's object must be the answer for a name nobody has, byte for byte once the name is
// swapped: the web view's explain and `/_swarm/v1/explain` with pattern, label and image affinities, and
// `system df`'s per-image and per-volume container counts. One engine (`swarm manage --tlsverify
// --ui`), every team at baseline so bob runs plain busybox. Host ports are the node's and stay
// visible (a create would be refused the node as the engine would refuse the bind): the
// explanation says which port, never whose, shown by bob's port and alice's own reading the same.
const ENGINE = 182;
const PORT = 28700;
const NODE = `node${ENGINE}`;
// Not a hex digit: never part of an ID, so swapping it for bob's name touches nothing else.
const NOBODY = 'zed';

let cluster: AccessCluster;

/** The docker CLI as someone, failing the test when it fails. */
async function run(person: Person, args: string[]): Promise<string> {
  const result = await cluster.as(person, args);
  if (result.code !== 0) throw new Error(`${person}: docker ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** An answer as alice gets it, with the status in front so a 404 and a 200 never compare equal. */
async function answer(person: Person, method: string, path: string, body: unknown): Promise<string> {
  const { status, text } = await cluster.call(person, method, path, body);
  return `${status} ${text}`;
}

/** alice's `system df`, without the `Up 5 seconds` of her container's status, which only time changes. */
async function diskUsage(person: Person): Promise<DiskUsage> {
  const { status, text } = await cluster.call(person, 'GET', '/system/df');
  expect(status).toBe(200);
  const df = JSON.parse(text) as DiskUsage;
  return { ...df, Containers: df.Containers.map((container) => ({ ...container, Status: '' })) };
}

interface DiskUsage {
  Images: { RepoTags: string[]; Containers: number }[];
  Containers: { Status: string }[];
  Volumes: { Name: string; UsageData: { RefCount: number } }[];
}

/** The web view's dry run of `docker run` options, and the API's of the same config. */
const explainers: Record<string, (person: Person, affinity: string) => Promise<string>> = {
  'the web view': (person, affinity) =>
    answer(person, 'POST', '/swarm/ui/api/explain', { args: ['-e', `affinity:${affinity}`, 'busybox:local'] }),
  '/_swarm/v1/explain': (person, affinity) =>
    answer(person, 'POST', '/_swarm/v1/explain', { Image: 'busybox:local', Env: [`affinity:${affinity}`] }),
};

/** Affinities that name bob (`r`) by pattern or label, not by a literal container name. */
const AFFINITIES = [
  (r: string) => `container==/${r}-.*/`,
  (r: string) => `container==/^${r}/`,
  (r: string) => `container==${r}-*`,
  (r: string) => `container!=/${r}-.*/`,
  (r: string) => `container==~/${r}-.*/`,
  (r: string) => `com.docker.swarm.owner==${r}`,
  (r: string) => `com.docker.swarm.owner==/${r}.*/`,
  // a team's committed image is the team's: where it is must not show either
  (r: string) => `image==${r}-img:1`,
  (r: string) => `image==/${r}-img.*/`,
  (r: string) => `image!=${r}-img`,
];

beforeAll(async () => {
  cluster = await startAccessCluster({
    firstEngine: ENGINE,
    engines: 1,
    port: PORT,
    args: ['--ui'],
    config: () =>
      accessConfig(undefined, {
        admission: [['policy', { default: 'baseline', bindings: [{ group: 'admins', level: 'privileged' }] }]],
      }),
  });
  await run('bob', ['run', '-d', '--name', 'bob-web', '-v', 'bob-data:/data', 'busybox:local', 'sleep', '600']);
  await run('bob', ['commit', 'bob-web', 'bob-img:1']);
});

afterAll(async () => {
  await cluster?.stop();
});

describe('explain with an affinity to bob by pattern or label', () => {
  for (const [where, explain] of Object.entries(explainers)) {
    it(`${where} answers alice as if bob’s containers were nobody’s`, async () => {
      for (const affinity of AFFINITIES) {
        const forBob = await explain('alice', affinity('bob'));
        const forNobody = await explain('alice', affinity(NOBODY));
        expect(forBob, affinity('bob')).toBe(forNobody.replaceAll(NOBODY, 'bob'));
      }
      // the affinities do tell bob's containers from nobody's to someone who sees them: the above
      // held because alice's answer was judged among her containers, not because they are alike
      for (const affinity of ['container==/bob-.*/', 'image==bob-img:1']) {
        const seeing = await explain('admin', affinity);
        expect(seeing, affinity).not.toBe((await explain('admin', affinity.replaceAll('bob', NOBODY))).replaceAll(NOBODY, 'bob'));
        expect(seeing).toMatch(/^200 /);
      }
    });
  }
});

describe('system df', () => {
  it('counts only the containers alice sees in each image and volume, as when bob had none', async () => {
    await run('alice', ['run', '-d', '--name', 'alice-web', '-v', 'alice-data:/data', 'busybox:local', 'sleep', '600']);
    // an admin's container mounting alice's volume: not hers, so not in her counts
    await run('admin', ['run', '-d', '--name', 'admin-reader', '-v', 'alice-data:/data', 'busybox:local', 'sleep', '600']);
    const busyboxUsers = (df: DiskUsage) => df.Images.find((image) => image.RepoTags.includes('busybox:local'))?.Containers;
    const withBob = await diskUsage('alice');
    expect(busyboxUsers(withBob)).toBe(1);
    expect(withBob.Volumes.map((volume) => [volume.Name, volume.UsageData.RefCount])).toEqual([['alice-data', 1]]);
    // the admin sees bob's and their own container using busybox: the count alice must not get
    expect(busyboxUsers(await diskUsage('admin'))).toBe(3);

    await run('bob', ['rm', '-f', 'bob-web']);
    await run('bob', ['volume', 'rm', 'bob-data']);
    await run('admin', ['rm', '-f', 'admin-reader']);
    expect(await diskUsage('alice')).toEqual(withBob);
    await run('alice', ['rm', '-f', 'alice-web']);
    await run('alice', ['volume', 'rm', 'alice-data']);
  });
});

describe('explain with a host port bob holds', () => {
  it('refuses the node for the port without saying whose, the same whoever holds it', async () => {
    const config = { Image: 'busybox:local', HostConfig: { PortBindings: { '80/tcp': [{ HostPort: '18080' }] } } };
    const explainPort = async () => ({
      api: await answer('alice', 'POST', '/_swarm/v1/explain', config),
      web: await answer('alice', 'POST', '/swarm/ui/api/explain', { args: ['-p', '18080:80', 'busybox:local'] }),
    });
    const bobs = await run('bob', ['run', '-d', '--name', 'bob-port', '-p', '18080:80', 'busybox:local', 'sleep', '600']);
    const whileBobHolds = await explainPort();
    for (const text of Object.values(whileBobHolds)) {
      expect(text).toContain('port 18080 (Bridge mode)');
      expect(text).not.toMatch(new RegExp(`bob|${bobs.slice(0, 12)}`));
    }
    await run('bob', ['rm', '-f', 'bob-port']);
    await run('alice', ['run', '-d', '--name', 'own-port', '-p', '18080:80', 'busybox:local', 'sleep', '600']);
    expect(await explainPort()).toEqual(whileBobHolds);
    await run('alice', ['rm', '-f', 'own-port']);
    // held by nobody, the node takes it: the port is the node's fact, as docs/access-control.md's limits say
    expect((await explainPort()).api).toContain(`"chosen":"${NODE}"`);
  });
});
