import { PLUGIN_API_VERSION, Tokens, type DriverOptions, type PluginContext } from '@swarm/plugin-sdk';

/**
 * The PluginContext handed to a plugin's `register`: every shorthand (`filter`, `strategy`, ...)
 * goes through `provide`. The SDK's test kit builds the same context (checked by a test).
 */
export function createPluginContext(
  provide: PluginContext['provide'],
  driverOptions: (name: string, options: DriverOptions) => void = () => undefined,
): PluginContext {
  return {
    apiVersion: PLUGIN_API_VERSION,
    provide,
    driver: (name, provider, options) => {
      provide(Tokens.ClusterDriver, name, provider);
      if (options) driverOptions(name, options);
    },
    filter: (name, provider) => provide(Tokens.Filter, name, provider),
    strategy: (name, provider) => provide(Tokens.Strategy, name, provider),
    discovery: (scheme, provider) => provide(Tokens.DiscoveryBackend, scheme, provider),
    web: (name, provider) => provide(Tokens.WebExtension, name, provider),
    authn: (name, provider) => provide(Tokens.Authenticator, name, provider),
    authz: (name, provider) => provide(Tokens.Authorizer, name, provider),
    admission: (name, provider) => provide(Tokens.AdmissionController, name, provider),
  };
}
