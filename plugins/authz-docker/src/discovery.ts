import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DockerAuthzErrors } from './errors.js';
import { decodeGoStruct } from './go-json.js';

/*
 * Where dockerd looks for a legacy ("v1") plugin by name (moby pkg/plugins/discovery.go), in
 * this order: a socket NAME.sock or NAME/NAME.sock under /run/docker/plugins; then, in each spec
 * folder, NAME.spec, NAME/NAME.spec, NAME.json, NAME/NAME.json. The first that exists wins.
 */

/** TLS settings of a plugin, as a `.json` spec's `TLSConfig` gives them (go-connections' Options). */
export interface PluginTlsConfig {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly insecureSkipVerify: boolean;
}

/** A plugin found by name (or given as a URL): what the client dials. */
export interface PluginEndpoint {
  /** The name errors use: `authorization denied by plugin NAME: ...`. */
  readonly name: string;
  /** `unix:///run/docker/plugins/opa.sock`, `tcp://127.0.0.1:8181`, `https://...`. */
  readonly addr: string;
  /** Absent: https verifies against the system's CAs. */
  readonly tls?: PluginTlsConfig;
  /** The file or option it came from, for log lines and errors. */
  readonly source: string;
}

export interface DiscoveryDirs {
  readonly socketsDir: string;
  readonly specDirs: readonly string[];
}

export const DOCKER_PLUGIN_DIRS: DiscoveryDirs = {
  socketsDir: '/run/docker/plugins',
  specDirs: ['/etc/docker/plugins', '/usr/lib/docker/plugins'],
};

/** A `.spec` file and dockerd's NewLocalPlugin skip certificate checks (moby's "TODO: change to nil"). */
const LOCAL_PLUGIN_TLS: PluginTlsConfig = { insecureSkipVerify: true };

const pluginPaths = (base: string, name: string, ext: string): string[] => [join(base, name + ext), join(base, name, name + ext)];

/** Every path looked at for `name`, in dockerd's order. */
export function candidatePaths(name: string, dirs: DiscoveryDirs): string[] {
  const specs = dirs.specDirs.flatMap((dir) => [...pluginPaths(dir, name, '.spec'), ...pluginPaths(dir, name, '.json')]);
  return [...pluginPaths(dirs.socketsDir, name, '.sock'), ...specs];
}

async function kindOf(path: string): Promise<'socket' | 'other' | undefined> {
  try {
    return (await stat(path)).isSocket() ? 'socket' : 'other';
  } catch {
    return undefined;
  }
}

const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** A URL from a `.spec` file or the `plugin` option: dockerd only insists on a scheme. */
export function endpointFromUrl(name: string, addr: string, source: string): PluginEndpoint {
  if (!HAS_SCHEME.test(addr)) throw DockerAuthzErrors.specInvalid({ path: source, reason: 'Unknown protocol' });
  return { name, addr, tls: LOCAL_PLUGIN_TLS, source };
}

async function readSpec(name: string, path: string): Promise<PluginEndpoint> {
  return endpointFromUrl(name, (await readFile(path, 'utf8')).trim(), path);
}

const TLS_FIELDS = { CAFile: 'string', CertFile: 'string', KeyFile: 'string', InsecureSkipVerify: 'bool' } as const;

/** Reads `{"Name": ..., "Addr": ..., "TLSConfig": {...}}`; the name is the file's, as in dockerd. */
async function readJsonSpec(name: string, path: string): Promise<PluginEndpoint> {
  const text = await readFile(path, 'utf8');
  let spec: Record<string, unknown>;
  let tlsFields: Record<string, unknown> | undefined;
  try {
    spec = decodeGoStruct(text, 'plugins.Plugin', { Addr: 'string' });
    const raw = JSON.parse(text) as Record<string, unknown>;
    const tlsKey = Object.keys(raw).find((key) => key.toLowerCase() === 'tlsconfig');
    const tlsValue = tlsKey === undefined ? null : raw[tlsKey];
    tlsFields = tlsValue === null ? undefined : decodeGoStruct(JSON.stringify(tlsValue), 'tlsconfig.Options', TLS_FIELDS);
  } catch (error) {
    throw DockerAuthzErrors.specInvalid({ path, reason: (error as Error).message });
  }
  const addr = typeof spec.Addr === 'string' ? spec.Addr : '';
  if (tlsFields === undefined) return { name, addr, source: path };
  const caFile = tlsFields.CAFile as string | undefined;
  const tls: PluginTlsConfig = {
    caFile: caFile || undefined,
    certFile: (tlsFields.CertFile as string | undefined) || undefined,
    keyFile: (tlsFields.KeyFile as string | undefined) || undefined,
    // a TLSConfig without a CA file means "do not verify" to dockerd
    insecureSkipVerify: !caFile || tlsFields.InsecureSkipVerify === true,
  };
  return { name, addr, tls, source: path };
}

/** The plugin `name` as dockerd would find it now, or undefined when nothing is there. */
export async function locatePlugin(name: string, dirs: DiscoveryDirs): Promise<PluginEndpoint | undefined> {
  for (const path of pluginPaths(dirs.socketsDir, name, '.sock')) {
    if ((await kindOf(path)) === 'socket') return { name, addr: `unix://${path}`, tls: LOCAL_PLUGIN_TLS, source: path };
  }
  for (const path of candidatePaths(name, dirs).slice(2)) {
    if ((await kindOf(path)) === undefined) continue;
    return basename(path).endsWith('.json') ? readJsonSpec(name, path) : readSpec(name, path);
  }
  return undefined;
}
