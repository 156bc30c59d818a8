import type { Node } from '@swarm/plugin-sdk';

/** Where one BuildKit build runs, and for whom. */
export interface BuildKitBinding {
  readonly node: Node;
  /** The caller who started it (access control); absent without access control. */
  readonly caller?: string;
}

/** How long a session or build reference stays known after it was last named. */
const KEEP_MS = 30 * 60_000;
/** Bindings kept at most; the oldest go first. */
const MAX_BINDINGS = 10_000;

interface Entry {
  binding: BuildKitBinding;
  seen: number;
}

type Waiter = (outcome: BuildKitBinding | Error) => void;

/** How long a build that could not be placed is remembered, for the calls that follow it. */
const FAILED_MS = 60_000;

class Bindings {
  private readonly entries = new Map<string, Entry>();
  private readonly failures = new Map<string, { error: Error; at: number }>();
  private readonly waiters = new Map<string, Waiter[]>();

  get(key: string): BuildKitBinding | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.seen > KEEP_MS) {
      this.entries.delete(key);
      return undefined;
    }
    entry.seen = Date.now();
    return entry.binding;
  }

  set(key: string, binding: BuildKitBinding): void {
    this.entries.delete(key);
    this.entries.set(key, { binding, seen: Date.now() });
    if (this.entries.size > MAX_BINDINGS) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.wake(key, binding);
  }

  /** `key`'s build could not be placed: the calls waiting for it, and those that come soon after, fail with `error`. */
  fail(key: string, error: Error): void {
    for (const [other, failure] of this.failures) if (Date.now() - failure.at > FAILED_MS) this.failures.delete(other);
    this.failures.set(key, { error, at: Date.now() });
    this.wake(key, error);
  }

  private wake(key: string, outcome: BuildKitBinding | Error): void {
    const waiting = this.waiters.get(key);
    this.waiters.delete(key);
    for (const wake of waiting ?? []) wake(outcome);
  }

  /** The binding of `key`, waiting up to `waitMs` for it to be made; undefined if it is not, rejected if its build failed. */
  wait(key: string, waitMs: number): Promise<BuildKitBinding | undefined> {
    const known = this.get(key);
    const failure = this.failures.get(key);
    if (!known && failure && Date.now() - failure.at <= FAILED_MS) return Promise.reject(failure.error);
    if (known || waitMs <= 0) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const wake: Waiter = (outcome) => {
        clearTimeout(timer);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const timer = setTimeout(() => {
        const list = this.waiters.get(key)?.filter((waiter) => waiter !== wake) ?? [];
        if (list.length === 0) this.waiters.delete(key);
        else this.waiters.set(key, list);
        resolve(undefined);
      }, waitMs);
      const list = this.waiters.get(key) ?? [];
      list.push(wake);
      this.waiters.set(key, list);
    });
  }
}

/**
 * The engine of each BuildKit session and build reference. A build is several connections the
 * client opens at once: `/session` (named by `X-Docker-Expose-Session-Uuid`), the control API's
 * `Solve` (naming its session and its reference), `Status` (its reference) and its frontend's
 * calls (the `buildkit-controlapi-buildid` metadata), or `/build?version=2&session=&buildid=`.
 * The first that can be placed binds them; the others wait for it, so all reach one engine.
 */
export class BuildKitBuilds {
  readonly sessions = new Bindings();
  readonly refs = new Bindings();
  private readonly args = new Map<string, Array<Record<string, string>>>();
  private readonly sessionOfRef = new Map<string, string>();

  /** A build's session and reference, as its `Solve` names them: its frontend's calls name only the reference. */
  bindRef(ref: string, session: string): void {
    if (ref === '' || session === '') return;
    this.sessionOfRef.delete(ref);
    this.sessionOfRef.set(ref, session);
    trim(this.sessionOfRef);
  }

  /** Build args a `Solve` of the session's build asked for (the control call's, each frontend call's). */
  addBuildArgs(key: { session?: string; ref?: string }, buildArgs: Record<string, string>): void {
    const session = key.session || (key.ref ? this.sessionOfRef.get(key.ref) : undefined);
    if (!session) return;
    const sets = this.args.get(session) ?? [];
    if (!sets.some((set) => JSON.stringify(set) === JSON.stringify(buildArgs))) sets.push(buildArgs);
    this.args.delete(session);
    this.args.set(session, sets);
    trim(this.args);
  }

  /** Every set of build args the session's builds asked for; undefined when no build of it was judged. */
  buildArgsOf(session: string): Array<Record<string, string>> | undefined {
    return this.args.get(session);
  }
}

function trim(map: Map<string, unknown>): void {
  while (map.size > MAX_BINDINGS) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) return;
    map.delete(oldest);
  }
}

// One registry per API server: keyed by its context object, so two deployments in one process share none.
const registries = new WeakMap<object, BuildKitBuilds>();

export function buildkitBuildsOf(api: object): BuildKitBuilds {
  let builds = registries.get(api);
  if (!builds) {
    builds = new BuildKitBuilds();
    registries.set(api, builds);
  }
  return builds;
}
