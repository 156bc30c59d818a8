import type { WireError } from './protocol.js';

/** The hooks of the access plugin kinds the host may call (SDK `Authenticator`, `Authorizer`, `AdmissionController`). */
export const ACCESS_HOOKS = ['authenticate', 'authorize', 'review', 'visibility', 'admit', 'roles'] as const;
export type AccessHook = (typeof ACCESS_HOOKS)[number];

/** What an access plugin's worker is given when it starts. */
export interface AccessIsolationData {
  /** The plugin's entry file, imported by the worker. */
  readonly entry: string;
  /** The provider's DI token (`swarm:Authorizer`) and the name the config gives (`rules`). */
  readonly token: string;
  readonly name: string;
  /** The entry's settings for the factory, less the logger (the worker's forwards to the host's). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly configDir: string;
  readonly logLevel: string;
  /** Slot 0: the number of the last synchronous answer posted (the host waits on it). */
  readonly answered: Int32Array;
  /** Slot 0: the worker writes Date.now() every `beatMs` while its loop turns. */
  readonly beat: Float64Array;
  readonly beatMs: number;
  /** Slot 0: the worker stores a call's `seq` as it begins its hook. */
  readonly begun: Int32Array;
}

/** Host to worker, on the asynchronous port. */
export type AccessCall =
  | { readonly op: 'call'; readonly seq: number; readonly hook: AccessHook; readonly args: readonly unknown[] }
  /** The host no longer holds this view: the worker drops it. */
  | { readonly op: 'release'; readonly view: number };

/** Host to worker, on the synchronous port: `sees` of a view the worker holds, or `roles`. */
export type AccessSyncQuestion =
  | { readonly hook: 'sees'; readonly view: number; readonly objects: readonly unknown[] }
  | { readonly hook: 'roles'; readonly caller: unknown };
export type AccessSyncCall = AccessSyncQuestion & { readonly seq: number };

/** A `visibility()` answer: a view the worker keeps (asked by number), or everything. */
export type WireVisibility = { readonly everything: true } | { readonly view: number };

/** Worker to host, on the asynchronous port. */
export type AccessMessage =
  | { readonly op: 'ready'; readonly hooks: readonly AccessHook[] }
  | { readonly op: 'failed'; readonly error: WireError }
  | { readonly op: 'answer'; readonly seq: number; readonly ok: true; readonly result: unknown }
  | { readonly op: 'answer'; readonly seq: number; readonly ok: false; readonly error: WireError }
  | {
      readonly op: 'log';
      readonly level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
      readonly bindings: Readonly<Record<string, unknown>>;
      readonly fields: Readonly<Record<string, unknown>> | undefined;
      readonly message: string | undefined;
    };

/** Worker to host, on the synchronous port (then slot 0 of `answered` is set to `seq`). */
export type AccessSyncAnswer =
  | { readonly seq: number; readonly ok: true; readonly result: unknown }
  | { readonly seq: number; readonly ok: false; readonly error: WireError };
