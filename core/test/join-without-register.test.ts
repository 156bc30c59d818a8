import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSwarm } from './support/run-cli.js';
import { createTempProject, type TempProject } from './support/temp-project.js';

// Discovery.register is optional (plugin API 2.0): a backend that finds its engines itself leaves
// it out, and `swarm join` says so with a coded error instead of calling a stub.
let project: TempProject;

beforeAll(() => {
  project = createTempProject();
  project.addPlugin('swarm-plugin-fixed', {
    kinds: ['discovery'],
    register: `ctx.discovery('fixed', { useValue: { scheme: 'fixed', open: () => ({
      watch: (onEntries) => { onEntries([]); return { stop: () => undefined }; },
      close: () => Promise.resolve(),
    }) } });`,
  });
  project.write('swarm.config.js', "export default { plugins: ['fixed'] };\n");
});

afterAll(() => project?.remove());

describe('swarm join with a discovery that takes no registrations', () => {
  it('exits 1 naming the scheme and what to use instead', async () => {
    const result = await runSwarm(['join', '--advertise', '127.0.0.2:2375', '--delay', '0s', 'fixed://anything'], { cwd: project.dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'swarm join: "fixed://" discovery takes no registrations (its backend finds the engines itself, so there is nothing to join); ' +
        'use a discovery that takes them (zk://, etcd://)',
    );
  });
});
