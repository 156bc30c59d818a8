import { describe, expect, it } from 'vitest';
import { definePlugin, Tokens, type ExtensionKind, type Provider } from '@swarm/plugin-sdk';
import { placementRequest, pluginProviders, runConfig, type RunSpec } from '@swarm/plugin-sdk/testing';
import { createScheduler } from '../dist/scheduler/index.js';
import { createPluginContext } from '../dist/plugins/plugin-context.js';
import { defaultFilters, strategy } from './scheduler-support.js';

// The SDK's test kit stands in for the host in plugin authors' tests: it must build what the host builds.
describe('the SDK test kit and the host', () => {
  it('hand plugins the same context: every shorthand registers under the same kind', () => {
    const recorded = (build: (provide: (kind: ExtensionKind, name: string, provider: Provider<unknown>) => void) => void) => {
      const calls: Array<[ExtensionKind, string]> = [];
      build((kind, name) => calls.push([kind, name]));
      return calls;
    };
    const register = (context: ReturnType<typeof createPluginContext>) => {
      const provider = { useValue: {} };
      context.driver('d', provider);
      context.filter('f', provider);
      context.strategy('s', provider);
      context.discovery('x', provider);
      context.web('w', provider);
      context.authn('n', provider);
      context.authz('z', provider);
      context.admission('a', provider);
    };
    const host = recorded((provide) => register(createPluginContext(provide)));
    const manifest = definePlugin({ name: 'probe', version: '1.0.0', apiVersion: '^2.0.0', register });
    const kit = pluginProviders(manifest);
    const kinds = [
      Tokens.ClusterDriver,
      Tokens.Filter,
      Tokens.Strategy,
      Tokens.DiscoveryBackend,
      Tokens.WebExtension,
      Tokens.Authenticator,
      Tokens.Authorizer,
      Tokens.AdmissionController,
    ] as const;
    expect(kinds.flatMap((kind) => kit.names(kind).map((name) => [kind, name]))).toEqual(host);
    expect(Object.keys(createPluginContext(() => undefined)).sort()).toEqual([
      'admission',
      'apiVersion',
      'authn',
      'authz',
      'discovery',
      'driver',
      'filter',
      'provide',
      'strategy',
      'web',
    ]);
  });

  it.each<RunSpec>([{}, { cpus: 2, memory: 1024 ** 3 }, { constraints: ['zone==a'], affinities: ['image==redis'], env: ['A=1'] }])(
    'build the same placement request for %j',
    (spec) => {
      const scheduler = createScheduler(defaultFilters(), strategy('spread'));
      const config = runConfig(spec);
      expect(placementRequest(config, { name: 'web' })).toEqual(scheduler.request(config, 'web'));
    },
  );
});
