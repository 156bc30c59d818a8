import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { DockerAuthzErrors, candidatePaths, DOCKER_PLUGIN_DIRS } from '@swarm/authz-docker';
import { startAuthzPlugin, type AuthzPlugin } from '../../../test/authz-plugin/authz-plugin.mjs';
import { makeCertificates } from '../../../test/harness/certificates.js';
import { accessRequest, authorizerFor, pluginDirs, warningsLogger } from './support.js';

const started: AuthzPlugin[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((plugin) => plugin.close()));
});

async function plugin(options: Parameters<typeof startAuthzPlugin>[0]): Promise<AuthzPlugin> {
  const p = await startAuthzPlugin(options);
  started.push(p);
  return p;
}

/** Asks once through the authorizer and says which plugin instance answered. */
async function askedThrough(options: Record<string, unknown>, ...plugins: AuthzPlugin[]): Promise<number> {
  for (const p of plugins) p.clear();
  const authorizer = await authorizerFor(options);
  await authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' }));
  return plugins.findIndex((p) => p.calls.some((call) => call.path === '/AuthZPlugin.AuthZReq'));
}

describe('discovery as dockerd finds --authorization-plugin NAME', () => {
  it("looks in dockerd's order: NAME.sock, NAME/NAME.sock, then per spec folder .spec, NAME/.spec, .json, NAME/.json", () => {
    expect(candidatePaths('opa', DOCKER_PLUGIN_DIRS)).toEqual([
      '/run/docker/plugins/opa.sock',
      '/run/docker/plugins/opa/opa.sock',
      '/etc/docker/plugins/opa.spec',
      '/etc/docker/plugins/opa/opa.spec',
      '/etc/docker/plugins/opa.json',
      '/etc/docker/plugins/opa/opa.json',
      '/usr/lib/docker/plugins/opa.spec',
      '/usr/lib/docker/plugins/opa/opa.spec',
      '/usr/lib/docker/plugins/opa.json',
      '/usr/lib/docker/plugins/opa/opa.json',
    ]);
  });

  it('finds NAME.sock, and NAME/NAME.sock, and activates it with an empty POST in the plugin MIME type', async () => {
    const dirs = pluginDirs();
    mkdirSync(join(dirs.socketsDir, 'nested'), { recursive: true });
    const flat = await plugin({ socketPath: join(dirs.socketsDir, 'flat.sock') });
    const nested = await plugin({ socketPath: join(dirs.socketsDir, 'nested', 'nested.sock') });
    expect(await askedThrough({ ...dirs.options, plugin: 'flat' }, flat, nested)).toBe(0);
    const activate = flat.calls[0]!;
    expect(activate).toMatchObject({ path: '/Plugin.Activate', method: 'POST', raw: '' });
    expect(activate.headers).toMatchObject({
      accept: 'application/vnd.docker.plugins.v1.2+json',
      host: 'plugin.moby.localhost',
      'content-length': '0',
    });
    expect(await askedThrough({ ...dirs.options, plugin: 'nested' }, flat, nested)).toBe(1);
  });

  it('a socket wins over a .spec of the same name; a .spec (URL in a text file) wins over a .json', async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.socketsDir, { recursive: true });
    mkdirSync(dirs.etc, { recursive: true });
    const bySocket = await plugin({ socketPath: join(dirs.socketsDir, 'both.sock') });
    const bySpec = await plugin({ port: 0 });
    const byJson = await plugin({ port: 0 });
    writeFileSync(join(dirs.etc, 'both.spec'), `${bySpec.url}\n`);
    writeFileSync(join(dirs.etc, 'spec-json.spec'), `  ${bySpec.url}  \n`);
    writeFileSync(join(dirs.etc, 'spec-json.json'), JSON.stringify({ Name: 'ignored', Addr: byJson.url }));
    expect(await askedThrough({ ...dirs.options, plugin: 'both' }, bySocket, bySpec, byJson)).toBe(0);
    expect(await askedThrough({ ...dirs.options, plugin: 'spec-json' }, bySocket, bySpec, byJson)).toBe(1);
  });

  it('reads a .json spec (Addr, TLSConfig; keys in any case, as Go decodes them) and finds specs in the second folder and in NAME/', async () => {
    const dirs = pluginDirs();
    mkdirSync(join(dirs.usrLib, 'deep'), { recursive: true });
    const byJson = await plugin({ port: 0 });
    const deep = await plugin({ port: 0 });
    writeFileSync(join(dirs.usrLib, 'j.json'), JSON.stringify({ addr: byJson.url, TLSConfig: null }));
    writeFileSync(join(dirs.usrLib, 'deep', 'deep.spec'), deep.url.replace('http://', 'tcp://'));
    expect(await askedThrough({ ...dirs.options, plugin: 'j' }, byJson, deep)).toBe(0);
    expect(await askedThrough({ ...dirs.options, plugin: 'deep' }, byJson, deep)).toBe(1);
  });

  it('reaches an https plugin as dockerd does: a .json TLSConfig with a CAFile verifies, one without skips checks, none verifies against the system', async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.etc, { recursive: true });
    const certs = join(dirs.root, 'certs');
    mkdirSync(certs);
    await makeCertificates(certs, {
      ca: '/CN=authz-plugin-ca',
      certificates: [{ name: 'plugin', subject: '/CN=127.0.0.1', ips: ['127.0.0.1'], usage: ['serverAuth'] }],
    });
    const tls = { cert: readFileSync(join(certs, 'plugin-cert.pem')), key: readFileSync(join(certs, 'plugin-key.pem')) };
    const secure = await plugin({ port: 0, tls });
    writeFileSync(join(dirs.etc, 'verified.json'), JSON.stringify({ Addr: secure.url, TLSConfig: { CAFile: join(certs, 'ca.pem') } }));
    writeFileSync(join(dirs.etc, 'unchecked.json'), JSON.stringify({ Addr: secure.url, TLSConfig: {} }));
    writeFileSync(join(dirs.etc, 'spec.spec'), secure.url);
    writeFileSync(join(dirs.etc, 'system.json'), JSON.stringify({ Addr: secure.url }));
    for (const name of ['verified', 'unchecked', 'spec']) expect(await askedThrough({ ...dirs.options, plugin: name }, secure)).toBe(0);
    await expect(authorizerFor({ ...dirs.options, plugin: 'system' })).rejects.toThrow(
      /^authorization plugin system: legacy plugin: Post "https:\/\/127\.0\.0\.1:\d+\/Plugin\.Activate": .*certificate/,
    );
  });

  it('takes a unix:// or http:// URL instead of a name, named by the URL (or the "name" option) in texts', async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.socketsDir, { recursive: true });
    const unix = await plugin({ socketPath: join(dirs.socketsDir, 'u.sock'), rules: [{ msg: 'no' }] });
    const tcp = await plugin({ port: 0, rules: [{ msg: 'nope' }] });
    const request = accessRequest({ method: 'GET', uri: '/v1.41/info' });
    expect(await (await authorizerFor({ plugin: unix.url })).authorize(request)).toEqual({
      allowed: false,
      reason: `authorization denied by plugin ${unix.url}: no`,
      rule: unix.url,
    });
    expect(await (await authorizerFor({ plugin: tcp.url, name: 'opa' })).authorize(request)).toMatchObject({
      reason: 'authorization denied by plugin opa: nope',
    });
  });

  it('refuses to start as dockerd does: a missing plugin, a spec without a scheme, a plugin that is no authz plugin, one that does not answer', async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.etc, { recursive: true });
    const missing = await authorizerFor({ ...dirs.options, plugin: 'ghost' }).catch((error: unknown) => error);
    expect(DockerAuthzErrors.notFound.is(missing) && isSwarmError(missing, ErrorCodes.PLUGIN_NOT_FOUND)).toBe(true);
    expect((missing as Error).message).toBe(
      `plugin "ghost" not found (looked for ${candidatePaths('ghost', { socketsDir: dirs.socketsDir, specDirs: [dirs.etc, dirs.usrLib] }).join(', ')})`,
    );

    writeFileSync(join(dirs.etc, 'bare.spec'), '127.0.0.1:9');
    await expect(authorizerFor({ ...dirs.options, plugin: 'bare' })).rejects.toThrow(
      `authorization plugin spec ${join(dirs.etc, 'bare.spec')}: Unknown protocol`,
    );

    const volume = await plugin({ port: 0, implements: ['VolumeDriver'] });
    await expect(authorizerFor({ plugin: volume.url, name: 'vol' })).rejects.toThrow(
      'authorization plugin vol: legacy plugin: Plugin does not implement the requested driver',
    );

    const gone = join(dirs.root, 'gone.sock');
    await expect(authorizerFor({ plugin: `unix://${gone}`, name: 'gone' })).rejects.toThrow(
      `authorization plugin gone: legacy plugin: Post "http://plugin.moby.localhost/Plugin.Activate": dial unix ${gone}: connect: no such file or directory`,
    );
  });

  it("waits for a plugin that appears after start-up, on dockerd's 1 s / 2 s schedule", async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.socketsDir, { recursive: true });
    const logger = warningsLogger();
    const starting = authorizerFor({ ...dirs.options, plugin: 'late', retryMs: 2500 }, logger);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = await plugin({ socketPath: join(dirs.socketsDir, 'late.sock') });
    const authorizer = await starting;
    expect(await authorizer.authorize(accessRequest({ method: 'GET', uri: '/_ping' }))).toEqual({ allowed: true });
    expect(late.calls.map((call) => call.path)).toEqual(['/Plugin.Activate', '/AuthZPlugin.AuthZReq']);
    // dockerd's warning, once per wait
    expect(logger.warnings).toEqual(['Unable to locate plugin: late, retrying in 1s']);
  });

  it('retries a call the plugin cannot take (restarting) on the same schedule, then answers', async () => {
    const dirs = pluginDirs();
    mkdirSync(dirs.socketsDir, { recursive: true });
    const socketPath = join(dirs.socketsDir, 'restarting.sock');
    const first = await startAuthzPlugin({ socketPath });
    const logger = warningsLogger();
    const authorizer = await authorizerFor({ ...dirs.options, plugin: 'restarting', retryMs: 2500 }, logger);
    await first.close();
    setTimeout(() => void plugin({ socketPath }), 300);
    expect(await authorizer.authorize(accessRequest({ method: 'GET', uri: '/v1.41/info' }))).toEqual({ allowed: true });
    expect(logger.warnings).toEqual([
      `Unable to connect to plugin restarting: Post "http://plugin.moby.localhost/AuthZPlugin.AuthZReq": dial unix ${socketPath}: connect: no such file or directory, retrying in 1s`,
    ]);
  });

  it('rejects unknown and malformed options with the option named', async () => {
    await expect(authorizerFor({})).rejects.toThrow('authz "docker" needs the option "plugin"');
    await expect(authorizerFor({ plugin: 'x', sockets: '/tmp' })).rejects.toThrow('option "sockets"');
    await expect(authorizerFor({ plugin: 'x', specDirs: '/etc' })).rejects.toThrow('option "specDirs" must be a list of folders');
  });
});
