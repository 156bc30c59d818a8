import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSwarm } from './support/run-cli.js';
import { createTempProject, filtersBody, pluginSource, type TempProject } from './support/temp-project.js';

/*
 * `swarm plugins` is exactly `swarm manage`'s verdict (issue 44 item 5): for each folder, what
 * manage refuses, plugins exits 1 for, with a row carrying manage's own words (the config's row
 * included), and what manage loads, plugins exits 0 for.
 */

let project: TempProject;

interface Row {
  name: string;
  package: string;
  provides: string[];
  error?: string;
}

beforeAll(() => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-gpu', { register: filtersBody('gpu'), kinds: ['filter'] });
  // another package whose manifest claims the name swarm-plugin-gpu
  project.addPlugin('swarm-plugin-gpu-fork', { source: pluginSource('swarm-plugin-gpu', { register: filtersBody('gpu-fork') }) });
  project.write('twice/.swarmrc.json', JSON.stringify({ plugins: ['gpu', 'swarm-plugin-gpu'] }));
  project.write('same/.swarmrc.json', JSON.stringify({ plugins: ['gpu', 'gpu'] }));
  project.write('claimed/.swarmrc.json', JSON.stringify({ plugins: ['gpu', 'gpu-fork'] }));
  project.write('broken/.swarmrc.json', JSON.stringify({ cluster: { heartbeat: true } }));
  project.write('syntax/swarm.config.js', 'export default { plugins: [ };\n');
  project.write('options/.swarmrc.json', JSON.stringify({ access: { authz: [['rules', { bindings: 'everyone' }]] } }));
  project.write(
    'fine/.swarmrc.json',
    JSON.stringify({ plugins: ['gpu'], access: { authz: [['rules', { bindings: [{ group: 'a', role: 'view' }] }]] } }),
  );
});

afterAll(() => project.remove());

async function verdicts(folder: string): Promise<{ rows: Row[]; code: number; manage: { code: number; stderr: string } }> {
  const cwd = `${project.dir}/${folder}`;
  const [json, manage] = await Promise.all([
    runSwarm(['plugins', '--json'], { cwd, timeoutMs: 30_000 }),
    runSwarm(['manage', '-H', 'tcp://127.0.0.1:29041', 'nodes://127.0.0.1:1'], { cwd, timeoutMs: 30_000 }),
  ]);
  return { rows: JSON.parse(json.stdout) as Row[], code: json.code, manage };
}

// each case runs the CLI twice or more: a loaded machine takes seconds a run
describe('swarm plugins gives swarm manage verdict', { timeout: 120_000 }, () => {
  it('one package listed twice: one message, saying so, and no "provided twice"', async () => {
    const { rows, code, manage } = await verdicts('twice');
    const message = "plugins lists swarm-plugin-gpu twice (as 'gpu' and as 'swarm-plugin-gpu'): list it once";
    expect(code).toBe(1);
    expect(rows.filter((row) => row.error !== undefined).map((row) => row.error)).toEqual([message]);
    expect(manage.code).toBe(1);
    expect(manage.stderr).toContain(message);
    expect(manage.stderr).not.toContain('provided twice');
  });

  it('one name written twice: the config keeps it once, for manage and plugins alike', async () => {
    const same = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/same`, timeoutMs: 30_000 });
    expect(same.code, same.stdout).toBe(0);
    expect((JSON.parse(same.stdout) as Row[]).filter((row) => row.package === 'swarm-plugin-gpu')).toHaveLength(1);
  });

  it('two packages claiming one plugin name: refused, naming both', async () => {
    const { rows, code, manage } = await verdicts('claimed');
    expect(code).toBe(1);
    const fork = rows.find((row) => row.package === 'swarm-plugin-gpu-fork');
    expect(fork?.error).toMatch(
      /^plugin name "swarm-plugin-gpu" is claimed by two packages, swarm-plugin-gpu \(\S+\) and swarm-plugin-gpu-fork \(\S+\); /,
    );
    expect(manage.code).toBe(1);
    expect(manage.stderr).toContain(fork!.error);
  });

  it("a config manage cannot read: exit 1 and, with --json, the rows on stdout with the config's own", async () => {
    for (const [folder, words] of [
      ['broken', 'cluster.heartbeat: expected string or number, got boolean'],
      ['syntax', 'swarm.config.js'],
    ] as const) {
      const { rows, code, manage } = await verdicts(folder);
      expect(code, folder).toBe(1);
      expect(rows.at(-1), folder).toMatchObject({ name: 'config', error: expect.stringContaining(words) as unknown });
      expect(
        rows.some((row) => row.name === '@swarm/filter-constraint'),
        folder,
      ).toBe(true);
      expect(manage.code, folder).toBe(1);
      expect(manage.stderr, folder).toContain(rows.at(-1)!.error);
    }
  });

  it("an access plugin's bad options: exit 1 with manage's refusal", async () => {
    const { rows, code, manage } = await verdicts('options');
    expect(code).toBe(1);
    const config = rows.at(-1)!;
    expect(config).toMatchObject({ name: 'config', error: expect.stringMatching(/^access\.authz\[0\]: /) as unknown });
    expect(manage.code).toBe(1);
    expect(manage.stderr).toContain(config.error);
  });

  it('what manage loads: exit 0, no error row', async () => {
    const fine = await runSwarm(['plugins', '--json'], { cwd: `${project.dir}/fine`, timeoutMs: 30_000 });
    expect(fine.code, fine.stdout).toBe(0);
    expect((JSON.parse(fine.stdout) as Row[]).filter((row) => row.error !== undefined)).toEqual([]);
  });
});
