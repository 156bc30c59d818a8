import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startAuthzPlugin, type AuthzPlugin } from './authz-plugin.mjs';
import { startEngineWithAuthz, type AuthzEngine } from './dockerd-with-authz.js';
import { startTestbed, type Testbed } from '../harness/engines.js';
import { startManager, type Manager } from '../harness/manager.js';

const run = promisify(execFile);

/*
 * The side-by-side set-up of the AuthZ suites: one recording plugin instance in front of a real
 * dockerd (`--authorization-plugin NAME`), another in front of a swarm manager over a testbed
 * engine (`swarm manage --authorization-plugin NAME`). Both find the plugin by the same name
 * through a `.spec` file: dockerd in its own /etc/docker/plugins (testbed engines bind-mount their
 * own /etc/docker), the manager in the host's; each suite gives its own NAME, so suites running at
 * once never share a spec file.
 */

export interface SideBySide {
  readonly enginePlugin: AuthzPlugin;
  readonly swarmPlugin: AuthzPlugin;
  /** The dockerd in front of `enginePlugin`. */
  readonly engine: AuthzEngine;
  /** The engine behind the manager. */
  readonly backend: Testbed;
  readonly manager: Manager;
  stop(): Promise<void>;
}

export interface SideBySideOptions {
  /** The plugin's name, and its spec file's. */
  readonly name: string;
  /** A folder for the plugins' sockets. */
  readonly dir: string;
  /** Engine index of the dockerd with the plugin. */
  readonly engineIndex: number;
  /** Engine index of the manager's engine. */
  readonly backendIndex: number;
  readonly port: number;
  /** More `swarm manage` flags. */
  readonly managerArgs?: readonly string[];
}

/** Starts both sides; what started is stopped again when a later step fails. */
export async function startSideBySide(options: SideBySideOptions): Promise<SideBySide> {
  const { name, dir } = options;
  const hostSpec = `/etc/docker/plugins/${name}.spec`;
  const undo: Array<() => Promise<void> | void> = [];
  const stop = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    const enginePlugin = await startAuthzPlugin({ socketPath: join(dir, 'engine-side.sock') });
    undo.push(() => enginePlugin.close());
    const swarmPlugin = await startAuthzPlugin({ socketPath: join(dir, 'swarm-side.sock') });
    undo.push(() => swarmPlugin.close());
    // the testbed engine first: it builds the busybox root filesystem the other engine imports
    const backend = await startTestbed({ first: options.backendIndex, count: 1 });
    undo.push(() => backend.stop());
    const engine = await startEngineWithAuthz(options.engineIndex, name, join(dir, 'engine-side.sock'));
    undo.push(() => engine.stop());
    const rootfs = `${process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed'}/busybox-rootfs.tar`;
    await run('docker', ['-H', `unix://${engine.socket}`, 'import', rootfs, 'busybox:local']);
    mkdirSync('/etc/docker/plugins', { recursive: true });
    writeFileSync(hostSpec, `unix://${join(dir, 'swarm-side.sock')}\n`);
    undo.push(() => rmSync(hostSpec, { force: true }));
    const manager = await startManager({
      discovery: backend.addrs,
      port: options.port,
      expectNodes: 1,
      args: ['--authorization-plugin', name, ...(options.managerArgs ?? [])],
    });
    undo.push(() => manager.stop());
    undo.push(() => {
      enginePlugin.setRules([]);
      swarmPlugin.setRules([]);
    });
    return { enginePlugin, swarmPlugin, engine, backend, manager, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
