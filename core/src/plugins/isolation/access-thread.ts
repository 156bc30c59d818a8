import { pathToFileURL } from 'node:url';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Tokens, type Logger, type PluginManifest, type Provider } from '@swarm/plugin-sdk';
import type { AccessObject, AccessPluginSettings, Caller, Visibility } from '@swarm/plugin-sdk/access';
import { createPluginContext } from '../plugin-context.js';
import { CoreErrors } from '../../errors.js';
import { wireError } from './wire-error.js';
import {
  ACCESS_HOOKS,
  type AccessCall,
  type AccessHook,
  type AccessIsolationData,
  type AccessMessage,
  type AccessSyncAnswer,
  type AccessSyncCall,
} from './access-protocol.js';

// Runs one access plugin (its factory and its hooks) in a thread of its own: a hook that never
// returns holds only this thread, which the host ends.
const data = workerData as AccessIsolationData & { port: MessagePort; syncPort: MessagePort };
const { entry, token, name, options, configDir, logLevel, answered, beat, beatMs, begun, port, syncPort } = data;

// the host reads it to tell a worker held by a hook from a busy one
setInterval(() => (beat[0] = Date.now()), beatMs).unref();

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

function post(message: AccessMessage): void {
  try {
    port.postMessage(message);
  } catch (error) {
    // fields the host cannot be sent (a function, a socket): their text instead
    if (message.op !== 'log') throw error;
    const fields = Object.fromEntries(Object.entries(message.fields ?? {}).map(([key, value]) => [key, String(value)]));
    port.postMessage({ ...message, fields });
  }
}

/** A logger whose lines the host writes, with the entry's bindings, through its own logger. */
function forwardingLogger(bindings: Readonly<Record<string, unknown>>): Logger {
  const line =
    (level: (typeof LEVELS)[number]) =>
    (first: string | Record<string, unknown>, message?: string): void => {
      const fields = typeof first === 'string' ? undefined : first;
      post({ op: 'log', level, bindings, fields, message: typeof first === 'string' ? first : message });
    };
  const logger = Object.fromEntries(LEVELS.map((level) => [level, line(level)])) as unknown as Logger;
  return Object.assign(logger, {
    level: logLevel,
    child: (more: Record<string, unknown>) => forwardingLogger({ ...bindings, ...more }),
  });
}

const logger = forwardingLogger({});

const resolver = {
  resolve(wanted: unknown): unknown {
    if (wanted === Tokens.Logger) return logger;
    throw CoreErrors.isolatedTokenUnavailable({ token: String(wanted) });
  },
};

/** The access plugin the entry's factory builds, as the host would build it. */
async function buildPlugin(): Promise<{ plugin: Record<string, unknown> } | { refused: string }> {
  const module = (await import(pathToFileURL(entry).href)) as { default?: PluginManifest; plugin?: PluginManifest };
  const manifest = module.default ?? module.plugin!;
  let provider: Record<string, unknown> | undefined;
  manifest.register(
    createPluginContext((kind, provided, given) => {
      if (kind === token && provided === name) provider = given as Provider<unknown> as Record<string, unknown>;
    }),
  );
  if (!provider) throw CoreErrors.isolatedProviderMissing({ kind: token, name });
  let factory: unknown;
  if ('useValue' in provider) factory = provider['useValue'];
  else if ('useClass' in provider) factory = new (provider['useClass'] as new () => unknown)();
  else factory = (provider['useFactory'] as (container: typeof resolver) => unknown)(resolver);
  if (typeof factory !== 'function') return { refused: `the plugin "${name}" did not provide a factory function` };
  const settings: AccessPluginSettings = { options, configDir, logger };
  return { plugin: (await (factory as (settings: AccessPluginSettings) => unknown)(settings)) as Record<string, unknown> };
}

/** The views `visibility()` answered, by number, until the host lets go of them. */
const views = new Map<number, Visibility>();
let nextView = 1;

function answerSync(message: AccessSyncAnswer): void {
  syncPort.postMessage(message);
  Atomics.store(answered, 0, message.seq);
  Atomics.notify(answered, 0);
}

/** Answers the host's calls into the built plugin. */
function serve(plugin: Record<string, unknown>): void {
  const call = async (hook: AccessHook, args: readonly unknown[]): Promise<unknown> => {
    const result = await (plugin[hook] as (...given: unknown[]) => unknown).apply(plugin, args as unknown[]);
    if (hook !== 'visibility') return result;
    const view = result as Visibility | undefined;
    if (view === undefined || view === null) return view;
    if (view.everything === true) return { everything: true };
    const number = nextView++;
    views.set(number, view);
    return { view: number };
  };
  port.on('message', (message: AccessCall) => {
    if (message.op === 'release') {
      views.delete(message.view);
      return;
    }
    Atomics.store(begun, 0, message.seq);
    call(message.hook, message.args).then(
      (result) => post({ op: 'answer', seq: message.seq, ok: true, result }),
      (error: unknown) => post({ op: 'answer', seq: message.seq, ok: false, error: wireError(error) }),
    );
  });
  syncPort.on('message', (message: AccessSyncCall) => {
    try {
      if (message.hook === 'roles') {
        const roles = (plugin['roles'] as (caller: Caller) => readonly string[]).call(plugin, message.caller as Caller);
        answerSync({ seq: message.seq, ok: true, result: [...roles] });
        return;
      }
      const view = views.get(message.view);
      if (!view) {
        answerSync({ seq: message.seq, ok: false, error: { message: 'the view was released' } });
        return;
      }
      answerSync({ seq: message.seq, ok: true, result: message.objects.map((object) => Boolean(view.sees(object as AccessObject))) });
    } catch (error) {
      answerSync({ seq: message.seq, ok: false, error: wireError(error) });
    }
  });
  post({ op: 'ready', hooks: ACCESS_HOOKS.filter((hook) => typeof plugin[hook] === 'function') });
}

try {
  const built = await buildPlugin();
  if ('refused' in built) post({ op: 'failed', error: { message: built.refused } });
  else serve(built.plugin);
} catch (error) {
  post({ op: 'failed', error: wireError(error) });
}
parentPort?.unref();
