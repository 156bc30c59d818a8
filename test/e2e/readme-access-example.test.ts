import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { healthyNodeCount, type InfoAnswer } from '../harness/manager.js';
import { execFileAsync, sleep, tempDir } from './api-support.js';
import { EngineRecorder, itJudgedEngineRequests } from './access-invariant.js';

// Indexes 249-250 and ports 28710-28719 belong to this file.
//
// The README's two-team example ("Who may do what"), run as a newcomer would: its blocks between
// the access-example markers, as written, in an empty folder. The only changes are the machine's:
// the engines' addresses (10.0.0.1-2 become engines 249-250), the manager's port (2376 becomes
// 28710), the audit log's folder (inside the test's folder, not /var/log), and images (the test
// engines hold busybox:local, without a command, and reach no registry: nginx is `busybox:local sleep 1d`). The `dockerd` lines are read for their
// certificate files, address and labels, and the testbed starts the engines with exactly those.
// The manager dials them through recording proxies on their own addresses (issue 42 item 1's
// invariant, test/e2e/access-invariant.ts): the only change to its line.
const FIRST = 249;
const PORT = 28710;
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const SWARM = fileURLToPath(new URL('../../core/bin/swarm.js', import.meta.url));

interface Block {
  readonly lang: string;
  readonly text: string;
}

/** The fenced blocks between `<!-- access-example:start` and `<!-- access-example:end -->`. */
function exampleBlocks(): Block[] {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('<!-- access-example:start');
  const end = readme.indexOf('<!-- access-example:end -->');
  if (start < 0 || end < start) throw new Error('README.md has no access-example markers');
  return [...readme.slice(start, end).matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1]!, text: match[2]! }));
}

/** What differs between the README's machines and this one. */
function localised(text: string, dir: string): string {
  return text
    .replaceAll('10.0.0.1', `127.0.0.${FIRST + 1}`)
    .replaceAll('10.0.0.2', `127.0.0.${FIRST + 2}`)
    .replace(/(0\.0\.0\.0|localhost|\$\(hostname\)):2376/g, `$1:${PORT}`)
    .replaceAll('/var/log/swarm/', `${dir}/var/log/swarm/`)
    .replace(/\bnginx\b/g, 'busybox:local sleep 1d')
    .replace(/\bbusybox\b(?!:)/g, 'busybox:local');
}

/** Shell lines with their `\` continuations joined. */
function logicalLines(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** A comment line under a command: what the command prints (up to the explanation after two spaces). */
const expectation = (line: string): string => line.replace(/^#\s*/, '').split(/\s{2,}/)[0]!;

/** `dockerd ...` as the testbed starts it: the index its address gives, its TLS files, its labels. */
function engineOf(line: string): { index: number; ca: string; cert: string; key: string; labels: string[] } {
  const words = line.split(/\s+/);
  const flag = (name: string) => {
    const at = words.indexOf(name);
    if (at < 0) throw new Error(`the README's dockerd line has no ${name}: ${line}`);
    return words[at + 1]!;
  };
  const address = /^tcp:\/\/127\.0\.0\.(\d+):2376$/.exec(flag('-H'));
  if (!address) throw new Error(`the README's dockerd line listens elsewhere than tcp://ADDRESS:2376: ${line}`);
  const labels = words.flatMap((word, at) => (words[at - 1] === '--label' ? [word] : []));
  return { index: Number(address[1]) - 1, ca: flag('--tlscacert'), cert: flag('--tlscert'), key: flag('--tlskey'), labels };
}

/** GET /info with a person's certificate folder, as DOCKER_CERT_PATH names it. */
function infoAs(dir: string, person: string): Promise<InfoAnswer | undefined> {
  const file = (name: string) => readFileSync(join(dir, person, name));
  return new Promise((resolve) => {
    const req = request(
      { host: 'localhost', port: PORT, path: '/info', ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem'), timeout: 5_000 },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve(res.statusCode === 200 ? (JSON.parse(text) as InfoAnswer) : undefined));
      },
    );
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

interface Step {
  readonly command: string;
  readonly expected: readonly string[];
  readonly output: string;
  readonly code: number;
}

let temp: { path: string; remove(): void };
let dir: string;
let engines: Testbed[] = [];
let manager: ChildProcess | undefined;
let managerOutput = '';
let steps: Step[] = [];
const recorder = new EngineRecorder();

async function stopManager(): Promise<void> {
  if (manager && manager.exitCode === null) {
    const exited = new Promise((resolve) => manager!.once('exit', resolve));
    manager.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
  }
}

/** Runs the client lines in one shell, as typed one after another, keeping each line's output and status. */
async function runClientLines(lines: readonly string[]): Promise<Step[]> {
  const commands: { command: string; expected: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) commands.at(-1)?.expected.push(expectation(line));
    else commands.push({ command: line, expected: [] });
  }
  const out = join(dir, 'out');
  mkdirSync(out);
  const script = commands
    .map(({ command }, n) => (command.startsWith('export ') ? command : `{ ${command}\n} >${out}/${n} 2>&1; echo $? >${out}/${n}.rc`))
    .join('\n');
  await execFileAsync('bash', ['-c', script], { cwd: dir, env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` } });
  return commands
    .map(({ command, expected }, n) => ({ command, expected, n }))
    .filter(({ command }) => !command.startsWith('export '))
    .map(({ command, expected, n }) => ({
      command,
      expected,
      output: readFileSync(join(out, String(n)), 'utf8'),
      code: Number(readFileSync(join(out, `${n}.rc`), 'utf8')),
    }));
}

beforeAll(async () => {
  temp = await tempDir('swarm-readme-access-');
  dir = temp.path;
  const blocks = exampleBlocks();
  const [certificates, daemons, config, session] = [
    blocks.find((block) => block.text.includes('openssl req')),
    blocks.find((block) => block.text.includes('dockerd ')),
    blocks.find((block) => block.lang === 'js' && block.text.includes('swarm.config.js')),
    blocks.find((block) => block.lang === 'bash' && block.text.startsWith('swarm manage ')),
  ];
  if (!certificates || !daemons || !config || !session) throw new Error('the README example lost one of its blocks');

  await execFileAsync('bash', ['-euo', 'pipefail', '-c', localised(certificates.text, dir)], { cwd: dir });

  // the engines, with the files and labels their dockerd lines name
  engines = await Promise.all(
    logicalLines(localised(daemons.text, dir))
      .filter((line) => line.startsWith('dockerd '))
      .map((line) => {
        const engine = engineOf(line);
        const tls = join(dir, `testbed-${engine.index}`);
        mkdirSync(tls);
        copyFileSync(join(dir, engine.ca), join(tls, 'ca.pem'));
        copyFileSync(join(dir, engine.cert), join(tls, 'server-cert.pem'));
        copyFileSync(join(dir, engine.key), join(tls, 'server-key.pem'));
        return startTestbed({ first: engine.index, count: 1, tlsDir: tls, labels: engine.labels });
      }),
  );
  expect(engines.flatMap((bed) => bed.engines.map((engine) => engine.index)).sort()).toEqual([FIRST, FIRST + 1]);
  // on the engines' addresses (their certificates name only those), presenting the manager's certificate to them
  await recorder.start(
    engines.flatMap((bed) => bed.engines),
    {
      dir: (engine) => join(dir, `testbed-${engine.index}`),
      identity: { cert: join(dir, 'manager', 'cert.pem'), key: join(dir, 'manager', 'key.pem') },
      onEngineAddress: true,
    },
  );

  writeFileSync(join(dir, 'swarm.config.js'), localised(config.text, dir));
  // `swarm` as `npx swarm` runs it
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'swarm'), `#!/bin/sh\nexec "${process.execPath}" "${SWARM}" "$@"\n`);
  chmodSync(join(dir, 'bin', 'swarm'), 0o755);

  const [manage, ...rest] = logicalLines(localised(session.text, dir));
  if (!manage?.startsWith('swarm manage ')) throw new Error(`the README's session does not start with swarm manage: ${manage}`);
  const proxied = manage.replace(/\b127\.0\.0\.\d+:\d+\b/g, (address) => recorder.addresses.get(address) ?? address);
  manager = spawn('bash', ['-c', `exec ${proxied}`], {
    cwd: dir,
    env: { ...process.env, PATH: `${dir}/bin:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  manager.stdout!.on('data', (chunk: Buffer) => (managerOutput += chunk.toString()));
  manager.stderr!.on('data', (chunk: Buffer) => (managerOutput += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (healthyNodeCount(await infoAs(dir, 'root')) < 2) {
    if (manager.exitCode !== null || Date.now() > deadline)
      throw new Error(`swarm manage did not see 2 healthy engines:\n${managerOutput}`);
    await sleep(500);
  }
  // the prose after `swarm manage` ("then, in another terminal") is not output
  steps = await runClientLines(
    rest.filter((line, at) => !(line.startsWith('#') && rest.slice(0, at).every((before) => before.startsWith('#')))),
  );
});

afterAll(async () => {
  await stopManager();
  await recorder.stop();
  await Promise.all(engines.map((bed) => bed.stop()));
  temp?.remove();
});

describe('the README’s two-team example, run as written', () => {
  it('runs every line: each prints what the README says under it, the others succeed', () => {
    expect(steps.length).toBeGreaterThanOrEqual(5);
    for (const step of steps) {
      if (step.expected.length === 0) expect(step.code, `${step.command}\n${step.output}`).toBe(0);
      else for (const text of step.expected) expect(step.output, step.command).toContain(text);
    }
  });

  it('does what the comments say: bob sees only team b, in zone b; the audit log is written', async () => {
    const bobPs = steps.find((step) => step.command.includes('./bob docker ps'))!;
    expect(bobPs.output).not.toMatch(/\bweb\b/);
    const names = await execFileAsync('docker', ['ps', '-a', '--format', '{{.Names}} {{.Label "com.docker.swarm.owner"}}'], {
      env: { ...process.env, DOCKER_HOST: `tcp://localhost:${PORT}`, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: join(dir, 'root') },
    });
    const rows = names.stdout.trim().split('\n');
    expect(rows).toContain(`node${FIRST}/web alice`);
    // team b's binding limits it to zone b: the second engine
    expect(rows.filter((row) => row.endsWith(' bob')).map((row) => row.split('/')[0])).toEqual([`node${FIRST + 1}`]);
    expect(existsSync(join(dir, 'var/log/swarm/audit.log'))).toBe(true);
    expect(readFileSync(join(dir, 'var/log/swarm/audit.log'), 'utf8')).toContain('"action":"container.create"');
  });

  it('reaches the manager by every name its certificate was made for', async () => {
    const { stdout: hostname } = await execFileAsync('hostname');
    for (const name of ['localhost', '127.0.0.1', hostname.trim()]) {
      const version = await execFileAsync('docker', ['-H', `tcp://${name}:${PORT}`, 'version', '--format', '{{.Server.Version}}'], {
        env: { ...process.env, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: join(dir, 'alice') },
      });
      expect(version.stdout.trim(), name).toMatch(/^swarm\//);
    }
  });

  it('shows alice the nodes’ reserved memory whole, as docs/access-control.md says: every team’s containers count', async () => {
    const env = { ...process.env, DOCKER_HOST: `tcp://localhost:${PORT}`, DOCKER_TLS_VERIFY: '1' };
    await execFileAsync('docker', ['run', '-d', '-m', '64m', '-e', `constraint:node==node${FIRST + 1}`, 'busybox:local', 'sleep', '1d'], {
      env: { ...env, DOCKER_CERT_PATH: join(dir, 'root') },
    });
    const info = await execFileAsync('docker', ['info'], { env: { ...env, DOCKER_CERT_PATH: join(dir, 'alice') } });
    const node = info.stdout.slice(info.stdout.indexOf(`node${FIRST + 1}:`));
    // bob's 64 MiB (the example's) and root's: neither is alice's
    expect(node).toMatch(/└ Reserved Memory: 128 MiB \//);
  });
});

itJudgedEngineRequests('readme-access-example', async () => {
  await stopManager();
  return recorder.judge('readme-access-example', join(dir, 'var/log/swarm/audit.log'));
});
