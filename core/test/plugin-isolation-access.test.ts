import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, Tokens, type Logger } from '@swarm/plugin-sdk';
import type { AccessObject, AccessRequest, AdmissionController, Authorizer, Caller } from '@swarm/plugin-sdk/access';
import { pluginGuard } from '../dist/plugins/plugin-guard.js';
import { seesEach, type ListVisibility } from '../dist/plugins/list-visibility.js';
import { IsolatedAccessPlugin, type AccessKind } from '../dist/plugins/isolation/isolated-access.js';
import { isolatedAccessPlugin } from '../dist/plugins/isolation/access-hooks.js';

const SDK = fileURLToPath(new URL('../../plugin-sdk', import.meta.url));

// A third-party access plugin: it logs from its factory, refuses a bad option, throws its own coded
// error, spins when asked, and crashes its thread outside a hook when asked.
const PLUGIN = `import { definePlugin, defineError, ErrorCodes } from '@swarm/plugin-sdk';
const denied = defineError('example.denied', { code: ErrorCodes.PERMISSION_DENIED, httpStatus: 403, message: (p) => 'no ' + p.who });
const forever = () => { for (;;) {} };
export default definePlugin({
  name: 'swarm-plugin-access-unit', version: '0.1.0', apiVersion: '^2.1.0',
  register(ctx) {
    ctx.authz('example', { useValue: ({ options, logger }) => {
      if (options.team === undefined) throw new Error('the option team is required');
      logger.child({ part: 'factory' }).info({ team: options.team }, 'built');
      return {
        authorize(request) {
          if (request.action === 'spin') forever();
          if (request.action === 'crash') { setTimeout(() => { throw new Error('crashed outside a hook'); }, 0); return new Promise(() => {}); }
          if (request.action === 'coded') throw denied({ who: request.caller.user });
          if (request.action === 'plain') throw new Error('plain failure');
          return { allowed: true, placement: [{ expression: 'team==' + options.team, rule: 'unit' }] };
        },
        visibility: (caller) => caller.user === 'root' ? { sees: () => true, everything: true } : { sees: (object) => object.labels.team === options.team },
        roles: (caller) => ['member of ' + options.team + ' as ' + caller.user],
      };
    } });
    ctx.admission('example', { useValue: () => ({ admit: (request) => ({ allowed: true, amended: { ...request.config, Labels: { admitted: 'yes' } } }) }) });
  },
});
`;

let dir: string;
const lines: Array<{ level: string; fields: unknown; message: unknown; bindings: Record<string, unknown> }> = [];

function recordingLogger(bindings: Record<string, unknown> = {}): Logger {
  const line =
    (level: string) =>
    (first: unknown, message?: unknown): void => {
      lines.push(
        typeof first === 'string' ? { level, fields: undefined, message: first, bindings } : { level, fields: first, message, bindings },
      );
    };
  return {
    level: 'info',
    trace: line('trace'),
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (more) => recordingLogger({ ...bindings, ...more }),
  } as Logger;
}

const guard = pluginGuard(() => 'swarm-plugin-access-unit@0.1.0', undefined);
const hosts: IsolatedAccessPlugin[] = [];

function host(kind: AccessKind, options: Record<string, unknown>, limitMs = 2000): IsolatedAccessPlugin {
  const made = new IsolatedAccessPlugin({
    entry: join(dir, 'index.js'),
    kind,
    token: kind === 'authz' ? Tokens.Authorizer : Tokens.AdmissionController,
    name: 'example',
    options,
    configDir: dir,
    logger: recordingLogger({ [kind]: 'example' }),
    limitMs,
    syncLimitMs: Math.min(limitMs, 1000),
    guard,
  });
  hosts.push(made);
  return made;
}

const alice: Caller = { user: 'alice', groups: ['a'], method: 'TLS' };
const ask = (action: string): AccessRequest => ({
  caller: alice,
  action,
  wire: { method: 'GET', uri: '/v1.41/info', headers: {}, peerCertificates: [] },
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'swarm-isolated-access-'));
  mkdirSync(join(dir, 'node_modules', '@swarm'), { recursive: true });
  symlinkSync(SDK, join(dir, 'node_modules', '@swarm', 'plugin-sdk'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'index.js'), PLUGIN);
});

afterAll(() => {
  for (const made of hosts) made.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an isolated access plugin', () => {
  it("runs the entry's factory in its worker, with a logger that writes through the host's", async () => {
    const plugin = (await isolatedAccessPlugin(host('authz', { team: 'a' }))) as Authorizer;
    expect(Object.keys(plugin).sort()).toEqual(['authorize', 'roles', 'visibility']);
    expect(lines).toContainEqual({
      level: 'info',
      fields: { team: 'a' },
      message: 'built',
      bindings: { authz: 'example', part: 'factory' },
    });
    await expect(plugin.authorize(ask('container.list'))).resolves.toEqual({
      allowed: true,
      placement: [{ expression: 'team==a', rule: 'unit' }],
    });
    expect(plugin.roles!(alice)).toEqual(['member of a as alice']);
  });

  it('refuses the entry as the factory does, and options that cannot cross to a thread with the reason', async () => {
    await expect(isolatedAccessPlugin(host('authz', {}))).rejects.toThrow('the option team is required');
    await expect(isolatedAccessPlugin(host('authz', { team: 'a', pick: () => true }))).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_LOAD_FAILED,
      message: expect.stringContaining(
        'authz "example" (swarm-plugin-access-unit@0.1.0) is isolated and its worker could not load the plugin: its options cannot be sent to a worker thread',
      ),
    });
  });

  it("passes the plugin's own errors as they were thrown, its coded ones with their code and status", async () => {
    const plugin = (await isolatedAccessPlugin(host('authz', { team: 'a' }))) as Authorizer;
    await expect(plugin.authorize(ask('coded'))).rejects.toMatchObject({
      code: ErrorCodes.PERMISSION_DENIED,
      httpStatus: 403,
      message: 'no alice',
    });
    await expect(plugin.authorize(ask('plain'))).rejects.toThrow('plain failure');
  });

  it('answers a view per object and a list at once alike, and everything without asking', async () => {
    const plugin = (await isolatedAccessPlugin(host('authz', { team: 'b' }))) as Authorizer;
    const view = (await plugin.visibility!(alice)) as ListVisibility;
    const objects: AccessObject[] = Array.from({ length: 2500 }, (_, i) => ({
      kind: 'container',
      id: `c${i}`,
      labels: { team: i % 2 === 0 ? 'b' : 'a' },
    }));
    const listed = seesEach(view, objects);
    expect(listed.filter(Boolean)).toHaveLength(1250);
    expect(objects.map((object) => view.sees(object))).toEqual(listed);
    expect((await plugin.visibility!({ ...alice, user: 'root' }))?.everything).toBe(true);
  });

  it('hands calls queued behind a spinning hook to a fresh worker before the limit, and fails the spinning one at it', async () => {
    const made = host('authz', { team: 'a' }, 3000);
    const plugin = (await isolatedAccessPlugin(made)) as Authorizer;
    const started = Date.now();
    const spinning = plugin.authorize(ask('spin'));
    spinning.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(plugin.authorize(ask('container.list'))).resolves.toMatchObject({ allowed: true });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(spinning).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      message:
        'authz "example" (swarm-plugin-access-unit@0.1.0) did not answer in authorize() within its time limit of 3s (the plugin entry\'s timeout option sets it)',
    });
    expect(made.hung).toBe(1);
    expect(made.starts).toBe(2);
  });

  it('fails a call whose worker crashed outside a hook, and starts afresh for the next', async () => {
    const made = host('authz', { team: 'a' });
    const plugin = (await isolatedAccessPlugin(made)) as Authorizer;
    await expect(plugin.authorize(ask('crash'))).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_FAILED,
      message: expect.stringContaining('crashed outside a hook'),
    });
    await expect(plugin.authorize(ask('container.list'))).resolves.toMatchObject({ allowed: true });
    expect(made.starts).toBe(2);
  });

  it('runs an admission controller, its amended config coming back', async () => {
    const plugin = (await isolatedAccessPlugin(host('admission', {}))) as AdmissionController;
    await expect(plugin.admit({ caller: alice, action: 'container.create', config: { Image: 'busybox' } })).resolves.toEqual({
      allowed: true,
      amended: { Image: 'busybox', Labels: { admitted: 'yes' } },
    });
  });
});
