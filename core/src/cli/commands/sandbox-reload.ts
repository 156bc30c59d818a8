import { spawn, type ChildProcess } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { once } from 'node:events';
import type { Logger } from '@swarm/plugin-sdk';

/** The environment variable that hands a reloaded sandbox the engines its supervisor keeps. */
export const SANDBOX_ENGINES_ENV = 'SWARM_SANDBOX_ENGINES';

// Changes that are not the plugin's code: its dependencies, version control, editors' swap files.
const IGNORED = /(^|[\\/])(node_modules|\.git)([\\/]|$)|(\.swp|~|\.tmp)$/;

/**
 * `swarm sandbox --plugin DIR`'s inner loop: the engines stay in this process, and the manager,
 * with the plugin loaded from its folder, runs in a child that is replaced whenever a file of the
 * folder changes (a `npm run build`, a `tsc -w`). A child, because an ES module once imported
 * stays imported in its process: a fresh process is the only way to load the plugin's new code
 * and everything it imports. The engines keep their containers across reloads.
 */
export class PluginReloader {
  private child: ChildProcess | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private restarting: Promise<void> = Promise.resolve();

  private readonly dir: string;
  private readonly engines: string;
  private readonly logger: Logger;

  /** `dir`: the plugin's folder; `engines`: the kept engines' `host:port,...`. */
  constructor(options: { dir: string; engines: string; logger: Logger }) {
    this.dir = options.dir;
    this.engines = options.engines;
    this.logger = options.logger;
  }

  start(): void {
    this.spawnManager();
    this.watcher = watch(this.dir, { recursive: true }, (_event, file) => {
      if (file !== null && IGNORED.test(file)) return;
      // a build writes many files: one reload once they are written
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.reload(String(file ?? '')), 300);
    });
  }

  private spawnManager(): void {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, [SANDBOX_ENGINES_ENV]: this.engines },
    });
    this.child = child;
    child.on('exit', (code, signal) => {
      if (this.child !== child || this.stopping) return;
      // a plugin that does not load ends the manager: say so, and wait for the next change
      this.child = undefined;
      this.logger.warn({ code, signal }, 'sandbox manager stopped: fix the plugin, it reloads on the next change');
    });
  }

  private reload(file: string): void {
    if (this.stopping) return;
    this.restarting = this.restarting.then(async () => {
      this.logger.info({ plugin: this.dir, changed: file }, 'plugin changed: reloading the sandbox manager');
      await this.stopManager();
      if (!this.stopping) this.spawnManager();
    });
  }

  private async stopManager(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.watcher?.close();
    await this.restarting;
    await this.stopManager();
  }
}
