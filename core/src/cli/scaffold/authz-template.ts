import { className, optionErrorsFile, type PluginFiles } from './template-parts.js';

/**
 * An authorizer that makes the members of configured groups read-only: they may list, inspect and
 * read logs, and are refused every other action of the kinds it knows. Everyone else, and actions
 * of kinds it was not written for (ones a newer host adds), get `NO_OPINION` (plugin API 2.2): the
 * other authorizers decide, and the host refuses what none allows, so it restricts without
 * granting what it does not judge. It passes the SDK's authz conformance as it is; an author
 * replaces `authorize` with their own rule, and adds `visibility` to hide objects.
 */
export function authzFiles(name: string): PluginFiles {
  const klass = className(name, 'Authorizer');
  const errors = className(name, 'Errors');
  return {
    ...optionErrorsFile('authz', name),
    [`src/${name}-authorizer.ts`]: `import { NO_OPINION, type AccessRequest, type Authorizer, type AuthorizerFactory, type AuthzDecision } from '@swarm/plugin-sdk/access';
import { ${errors} } from './${name}-errors.js';

/** Actions that only read: \`<kind>.list\`, \`<kind>.inspect\`, logs and the like, and the system's own. */
const READS = /^(?:[a-z]+\\.(?:list|inspect|logs|stats|top|changes|history)|system\\.(?:info|version|ping|events|df)|swarm\\.(?:explain|health))$/;

/** The kinds of action it judges (plugin API 2.2's catalogue): an action of another kind is not its business. */
const KINDS = /^(?:container|exec|image|network|volume|node|plugin|system|swarm)\\./;

/**
 * \`access: { authz: [['rules', { ... }], ['${name}', { readOnly: ['auditors'] }]] }\`: members of the
 * \`readOnly\` groups may only read, whatever the other authorizers allow them. Everyone else, and
 * actions of a kind it does not know, are left to the other authorizers (\`NO_OPINION\`): alone in
 * the chain it would refuse them, as the host refuses what no authorizer allows.
 */
export class ${klass} implements Authorizer {
  /** The provider the plugin registers: the host calls it once per deployment with the entry's options. */
  static readonly factory: AuthorizerFactory = ({ options }) => new ${klass}(readOnlyGroups(options));

  constructor(private readonly readOnly: readonly string[]) {}

  authorize(request: AccessRequest): AuthzDecision {
    if (!KINDS.test(request.action)) return NO_OPINION;
    const group = request.caller.groups.find((candidate) => this.readOnly.includes(candidate));
    if (group === undefined) return NO_OPINION;
    if (READS.test(request.action)) return { allowed: true };
    return {
      allowed: false,
      reason: \`user \${request.caller.user} (group \${group}) may only read: \${request.action || 'this action'} is refused by authz "${name}"\`,
      rule: \`readOnly \${group}\`,
    };
  }
}

/** The options, checked: a mistake is a coded error naming the option, which the host prefixes with the config's key. */
function readOnlyGroups(options: Readonly<Record<string, unknown>>): readonly string[] {
  for (const key of Object.keys(options)) {
    if (key !== 'readOnly') throw ${errors}.option({ option: key, problem: 'is unknown; known options: readOnly' });
  }
  const groups = options['readOnly'] ?? [];
  if (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string' && group !== ''))
    throw ${errors}.option({ option: 'readOnly', problem: \`must be a list of group names, got \${JSON.stringify(groups)}\` });
  return groups;
}
`,
    [`test/${name}.test.ts`]: `import { describe, expect, it } from 'vitest';
import { Tokens } from '@swarm/plugin-sdk';
import { NO_OPINION, type AuthorizerFactory } from '@swarm/plugin-sdk/access';
import { authzConformance, authzRequest, noopLogger, ownedObject, pluginProviders, testCaller } from '@swarm/plugin-sdk/testing';
import { plugin } from '../dist/index.js';

const factory = pluginProviders(plugin).get<AuthorizerFactory>(Tokens.Authorizer, '${name}');
const options = { readOnly: ['auditors', 'team-b'] };
const carol = testCaller('carol', ['auditors']);
const web = ownedObject('container', 'web', 'alice', 'team-a');
const build = () => factory({ options, configDir: '.', logger: noopLogger });

describe('${name} authorizer', () => {
  authzConformance(factory, { options, invalidOptions: [{ readOnly: 'auditors' }, { readonly: ['auditors'] }] }, { it });

  it('lets read-only callers read', async () => {
    const authorizer = await build();
    expect(await authorizer.authorize(authzRequest(carol, 'container.list'))).toEqual({ allowed: true });
    expect(await authorizer.authorize(authzRequest(carol, 'container.logs', web))).toEqual({ allowed: true });
  });

  it('refuses them every other action it knows, naming the group', async () => {
    const authorizer = await build();
    expect(await authorizer.authorize(authzRequest(carol, 'container.exec', web))).toEqual({
      allowed: false,
      reason: 'user carol (group auditors) may only read: container.exec is refused by authz "${name}"',
      rule: 'readOnly auditors',
    });
  });

  it('has no opinion on other callers, nor on actions of a kind it does not know: the other authorizers decide', async () => {
    const authorizer = await build();
    expect(await authorizer.authorize(authzRequest(testCaller('alice', ['team-a']), 'container.remove', web))).toEqual(NO_OPINION);
    expect(await authorizer.authorize(authzRequest(carol, 'service.scale'))).toEqual(NO_OPINION);
  });
});
`,
  };
}
