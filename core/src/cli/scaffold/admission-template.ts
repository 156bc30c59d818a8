import { className, optionErrorsFile, type PluginFiles } from './template-parts.js';

/**
 * An admission controller over memory limits: it refuses a create or update above `maxMemory`
 * and fills `defaultMemory` into a create that sets none, so it shows both verdicts a controller
 * gives (a refusal naming its field, an amended config). It passes the SDK's admission conformance
 * as it is; an author replaces `admit` with their own rules.
 */
export function admissionFiles(name: string): PluginFiles {
  const klass = className(name, 'Admission');
  const errors = className(name, 'Errors');
  return {
    ...optionErrorsFile('admission', name),
    [`src/${name}-admission.ts`]: `import type { AdmissionController, AdmissionFactory, AdmissionRequest, AdmissionVerdict } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { ${errors} } from './${name}-errors.js';

const GiB = 1024 ** 3;

interface Limits {
  readonly maxMemory: number;
  readonly defaultMemory: number;
}

const gib = (bytes: number) => \`\${+(bytes / GiB).toFixed(2)} GiB\`;

/**
 * \`access: { admission: [['${name}', { maxMemory: 4294967296, defaultMemory: 536870912 }]] }\`: no container
 * above \`maxMemory\` bytes (4 GiB by default); a create without a limit gets \`defaultMemory\`
 * (512 MiB by default).
 */
export class ${klass} implements AdmissionController {
  /** The provider the plugin registers: the host calls it once per deployment with the entry's options. */
  static readonly factory: AdmissionFactory = ({ options }) => new ${klass}(limits(options));

  constructor(private readonly limits: Limits) {}

  admit(request: AdmissionRequest): AdmissionVerdict {
    // an update is asked about as the container's config with the update merged into its HostConfig
    const memory: unknown = request.config.HostConfig?.Memory ?? 0;
    if (typeof memory !== 'number') return refuse(': not a number');
    if (memory > this.limits.maxMemory) return refuse(\`: \${gib(memory)} is over \${gib(this.limits.maxMemory)}\`);
    // 0 means no limit in a create, "leave it as it is" in an update (the docker CLI sends 0 for flags not given)
    if (request.action === 'container.update' || memory > 0) return { allowed: true };
    // never change the given config: amend a copy
    const amended: ContainerConfig = { ...request.config, HostConfig: { ...request.config.HostConfig, Memory: this.limits.defaultMemory } };
    return { allowed: true, amended };
  }
}

function refuse(detail: string): AdmissionVerdict {
  return { allowed: false, policy: '${name}', rule: 'max-memory', field: 'HostConfig.Memory', detail };
}

/** The options, checked: a mistake is a coded error naming the option, which the host prefixes with the config's key. */
function limits(options: Readonly<Record<string, unknown>>): Limits {
  for (const key of Object.keys(options)) {
    if (key !== 'maxMemory' && key !== 'defaultMemory')
      throw ${errors}.option({ option: key, problem: 'is unknown; known options: maxMemory, defaultMemory' });
  }
  const bytes = (key: string, fallback: number): number => {
    const value = options[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
      throw ${errors}.option({ option: key, problem: \`must be a number of bytes > 0, got \${JSON.stringify(value)}\` });
    return value;
  };
  const found = { maxMemory: bytes('maxMemory', 4 * GiB), defaultMemory: bytes('defaultMemory', GiB / 2) };
  if (found.defaultMemory > found.maxMemory) throw ${errors}.option({ option: 'defaultMemory', problem: 'must not be over maxMemory' });
  return found;
}
`,
    [`test/${name}.test.ts`]: `import { describe, expect, it } from 'vitest';
import { Tokens } from '@swarm/plugin-sdk';
import type { AdmissionFactory, Caller } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { admissionConformance, noopLogger, pluginProviders } from '@swarm/plugin-sdk/testing';
import { plugin } from '../dist/index.js';

const GiB = 1024 ** 3;
const factory = pluginProviders(plugin).get<AdmissionFactory>(Tokens.AdmissionController, '${name}');
const alice: Caller = { user: 'alice', groups: ['team-a'], method: 'TLS' };
const admit = async (config: ContainerConfig, action: 'container.create' | 'container.update' = 'container.create') =>
  (await factory({ options: {}, configDir: '.', logger: noopLogger })).admit({ caller: alice, action, config });

describe('${name} admission', () => {
  admissionConformance(
    factory,
    {
      name: '${name}',
      allows: [{ config: { Image: 'busybox', HostConfig: { Memory: GiB } } }],
      refuses: [{ config: { Image: 'busybox', HostConfig: { Memory: 8 * GiB } } }],
      invalidOptions: [{ maxMemory: '4g' }, { maxMemory: GiB, defaultMemory: 2 * GiB }, { max: 1 }],
    },
    { it },
  );

  it('refuses a create above the maximum, naming the field', async () => {
    expect(await admit({ Image: 'busybox', HostConfig: { Memory: 8 * GiB } })).toEqual({
      allowed: false,
      policy: '${name}',
      rule: 'max-memory',
      field: 'HostConfig.Memory',
      detail: ': 8 GiB is over 4 GiB',
    });
  });

  it('fills the default limit into a create without one', async () => {
    const verdict = await admit({ Image: 'busybox', HostConfig: { NetworkMode: 'bridge' } });
    expect(verdict).toEqual({ allowed: true, amended: { Image: 'busybox', HostConfig: { NetworkMode: 'bridge', Memory: GiB / 2 } } });
  });

  it('judges an update as the container would run with it, amending nothing', async () => {
    // the host merges the update into the container's HostConfig; the docker CLI sends 0 for flags not given
    expect(await admit({ Image: 'busybox', HostConfig: { Memory: 0, CpuShares: 512 } }, 'container.update')).toEqual({ allowed: true });
    expect(await admit({ Image: 'busybox', HostConfig: { Memory: 5 * GiB } }, 'container.update')).toMatchObject({
      allowed: false,
      field: 'HostConfig.Memory',
      detail: ': 5 GiB is over 4 GiB',
    });
  });
});
`,
  };
}
