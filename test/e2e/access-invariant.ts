import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestEngine } from '../harness/engines.js';
import { startRecordingProxy, type RecordedRequest, type RecordingProxy } from '../harness/recording-proxy.js';
import type { AccessCluster } from './access-support.js';

/*
 * Issue 42's first invariant, "nothing reaches an engine unjudged", kept for any access suite: a
 * recording proxy in front of every engine sees each request the engine's parser reads, and after
 * the manager stopped (a stream's audit line is written when it ends) every one of them is either
 * the manager's own reading of the engine or explained by an allowed line of the audit log on the
 * same route and object.
 *
 * The manager's own reading: a GET without a User-Agent (the manager's engine client sends none;
 * the docker CLI and the suites' own requests send one) to a route of DRIVER_READS, on a connection
 * that never carried a client's request (a smuggled request rides on the connection of the request
 * it hid behind, whatever its own headers say).
 *
 * An allowed line explains one engine request on its route and object (the ID the client's name
 * meant, or the name as written), or one per engine for the routes the manager documents as going
 * to every engine that holds the object or should (FAN_OUT): a pull, a tag, a push and a removal
 * of an image by name, a volume's creation, a removal of a volume or network by name, the prunes,
 * a load.
 */

export interface AuditLine {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly decision: { readonly allowed: boolean };
  readonly object?: { readonly kind: string; readonly id?: string; readonly name?: string };
}

/** What the manager reads of an engine on its own (the swarm driver's refresh, events and inspects; exec inspects for `docker exec`'s exit code). */
export const DRIVER_READS: ReadonlySet<string> = new Set([
  'GET /_ping',
  'GET /version',
  'GET /info',
  'GET /events',
  'GET /containers/json',
  'GET /containers/{id}/json',
  'GET /images/json',
  'GET /images/{id}/json',
  'GET /networks',
  'GET /networks/{id}',
  'GET /volumes',
  'GET /volumes/{id}',
  'GET /exec/{id}/json',
]);

/** Routes one allowed request of which may reach every engine (docs/access-control.md, docs/api.md). */
export const FAN_OUT: ReadonlySet<string> = new Set([
  'POST /images/create',
  'POST /images/load',
  'POST /images/{id}/tag',
  'POST /images/{id}/push',
  'DELETE /images/{id}',
  // a local volume is made on every node; a volume's or network's name removes every node's copy
  'POST /volumes/create',
  'DELETE /volumes/{id}',
  'DELETE /networks/{id}',
  // disk usage is every engine's, combined
  'GET /system/df',
  // the plugin list is every healthy engine's (core/src/api/handlers/plugins.ts `listPlugins`)
  'GET /plugins',
  // a plugin is looked for, and acted on, on every engine holding it
  'GET /plugins/{id}/json',
  'POST /plugins/{id}/enable',
  'POST /plugins/{id}/disable',
  'POST /plugins/{id}/set',
  'POST /plugins/{id}/upgrade',
  'DELETE /plugins/{id}',
  'POST /plugins/pull',
  'POST /images/prune',
  'POST /containers/prune',
  'POST /networks/prune',
  'POST /volumes/prune',
  'POST /build/prune',
]);

/**
 * What an allowed request may make the manager send besides itself, once per engine: a container
 * create first makes the named volumes its mounts would make, with the caller's labels
 * (core/src/api/access-create.ts), one volume per engine for each create; any request on a plugin
 * first asks every engine for its copy of it (core/src/api/handlers/plugins.ts).
 */
function madeAlong(line: AuditLine, parts: readonly string[], names: readonly string[]): string[] {
  if (line.method === 'POST' && parts[0] === 'containers' && parts[1] === 'create') return ['POST /volumes/create'];
  if (parts[0] === 'plugins' && hasObject(parts)) return names.map((name) => `GET /plugins/${name}/json`);
  return [];
}

const KINDS = new Set(['containers', 'exec', 'images', 'networks', 'volumes', 'plugins', 'distribution']);
const COLLECTION_WORDS = new Set(['json', 'create', 'prune', 'load', 'search', 'get']);

/** A set of node names: a client's path may name an object as `node/name`. */
type Nodes = ReadonlySet<string>;
const NO_NODES: Nodes = new Set();

/** `/v1.41/containers/3f2a/start?x=1` → ['containers', '3f2a', 'start'] (version and query gone, names decoded, `node/name` one part). */
function segments(target: string, nodes: Nodes): string[] {
  const path = (target.split('?')[0] ?? '').replace(/^\/v\d+\.\d+(?=\/)/, '');
  // an image's name keeps its slashes (`/images/library/busybox:local/json`): its route ends in a known word
  const parts = path.split('/').filter((part) => part !== '');
  const decoded = parts.map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  if ((decoded[0] === 'images' || decoded[0] === 'distribution') && decoded.length > 2) {
    const last = decoded[decoded.length - 1]!;
    const word = ['json', 'history', 'tag', 'push', 'get'].includes(last) ? [last] : [];
    const name = decoded.slice(1, decoded.length - word.length).join('/');
    return [decoded[0], name, ...word];
  }
  if (KINDS.has(decoded[0] ?? '') && decoded.length > 2 && nodes.has(decoded[1]!)) {
    return [decoded[0]!, `${decoded[1]}/${decoded[2]}`, ...decoded.slice(3)];
  }
  return decoded;
}

function hasObject(parts: readonly string[]): boolean {
  return KINDS.has(parts[0] ?? '') && parts[1] !== undefined && !COLLECTION_WORDS.has(parts[1]);
}

/** The route family, objects left out: `POST /containers/{id}/start`. */
export function family(method: string, target: string, nodes: Nodes = NO_NODES): string {
  const parts = segments(target, nodes);
  if (hasObject(parts)) parts[1] = '{id}';
  return `${method} /${parts.join('/')}`;
}

function keyWith(method: string, parts: readonly string[], object: string): string {
  return `${method} /${[parts[0], object, ...parts.slice(2)].join('/')}`;
}

/** The keys an allowed line stands for: its object's ID, its name, and the name as the client wrote it (a `node/` prefix taken off). */
function auditKeys(line: AuditLine, nodes: Nodes): { keys: string[]; along: string[] } {
  const parts = segments(line.path, nodes);
  // a BuildKit call judged on a client's `/grpc` (its line's path `/grpc/<method>`) may be what opens the manager's own `/grpc` to its engine
  if (parts[0] === 'grpc' && parts.length > 1) return { keys: ['POST /grpc'], along: [] };
  if (!hasObject(parts)) return { keys: [`${line.method} /${parts.join('/')}`], along: madeAlong(line, parts, []) };
  const written = parts[1]!;
  const names = [
    ...new Set(
      [written, written.replace(/^[^/]+\/(?=[^/]+$)/, ''), line.object?.id, line.object?.name].filter(
        (name): name is string => typeof name === 'string' && name !== '',
      ),
    ),
  ];
  return { keys: names.map((name) => keyWith(line.method, parts, name)), along: madeAlong(line, parts, names) };
}

function engineKey(request: RecordedRequest): string {
  return `${request.method} /${segments(request.target, NO_NODES).join('/')}`;
}

export interface InvariantRow {
  readonly family: string;
  judged: number;
  own: number;
  allowed: number;
  denied: number;
  unexplained: number;
}

export interface InvariantReport {
  readonly received: number;
  readonly judged: number;
  readonly own: number;
  readonly allowed: number;
  readonly denied: number;
  /** `engine METHOD target` of every engine request nothing explains. */
  readonly unexplained: readonly string[];
  readonly rows: readonly InvariantRow[];
}

/** Sorts the engines' requests into the manager's own and the judged, and matches the judged against the allowed audit lines. */
export function judgeEngineRequests(received: readonly RecordedRequest[], audit: readonly AuditLine[], engines: number): InvariantReport {
  const clientConnections = new Set(
    received.filter((request) => request.headers['user-agent'] !== undefined).map((request) => `${request.engine}#${request.connection}`),
  );
  const isOwn = (request: RecordedRequest) =>
    request.method === 'GET' &&
    request.headers['user-agent'] === undefined &&
    !clientConnections.has(`${request.engine}#${request.connection}`) &&
    DRIVER_READS.has(family(request.method, request.target));
  const own = received.filter(isOwn);
  const judged = received.filter((request) => !isOwn(request));
  const allowed = audit.filter((line) => line.decision.allowed);

  // each allowed line has room for one engine request, or one per engine on a FAN_OUT route; what
  // it makes along comes after every line's own room, so that a volume create's line is used first
  const nodes: Nodes = new Set(received.map((request) => request.engine));
  const keyed = allowed.map((line) => ({ line, ...auditKeys(line, nodes) }));
  const slots = [
    ...keyed.map(({ line, keys }) => ({ keys, room: FAN_OUT.has(family(line.method, line.path, nodes)) ? engines : 1 })),
    ...keyed.filter(({ along }) => along.length > 0).map(({ along }) => ({ keys: along, room: engines })),
  ];
  const byKey = new Map<string, typeof slots>();
  for (const slot of slots) for (const key of slot.keys) byKey.set(key, [...(byKey.get(key) ?? []), slot]);
  const unexplained: RecordedRequest[] = [];
  for (const request of judged) {
    const slot = (byKey.get(engineKey(request)) ?? []).find((candidate) => candidate.room > 0);
    if (slot === undefined) unexplained.push(request);
    else slot.room -= 1;
  }

  const table = new Map<string, InvariantRow>();
  const row = (name: string) =>
    table.get(name) ?? table.set(name, { family: name, judged: 0, own: 0, allowed: 0, denied: 0, unexplained: 0 }).get(name)!;
  for (const request of judged) row(family(request.method, request.target)).judged += 1;
  for (const request of own) row(family(request.method, request.target)).own += 1;
  for (const request of unexplained) row(family(request.method, request.target)).unexplained += 1;
  for (const line of audit) row(family(line.method, line.path, nodes))[line.decision.allowed ? 'allowed' : 'denied'] += 1;
  return {
    received: received.length,
    judged: judged.length,
    own: own.length,
    allowed: allowed.length,
    denied: audit.length - allowed.length,
    unexplained: unexplained.map((request) => `${request.engine} ${request.method} ${request.target}`),
    rows: [...table.values()].sort((a, b) => a.family.localeCompare(b.family)),
  };
}

/** Every line of an audit log, its rotated files' (`audit.log.1`, ...) included. */
export function readAuditLog(path: string): AuditLine[] {
  const folder = dirname(path);
  const files = readdirSync(folder).filter((name) => name === basename(path) || name.startsWith(`${basename(path)}.`));
  return files
    .flatMap((name) => readFileSync(join(folder, name), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditLine);
}

export interface RecorderTls {
  /** The folder with ca.pem, server-cert.pem and server-key.pem the proxy in front of `engine` shows the manager. */
  readonly dir: (engine: TestEngine) => string;
  /** The certificate and key the proxies present to the engines (the server certificate by default). */
  readonly identity?: { readonly cert: string; readonly key: string };
  /** Listen on the engine's own address (its certificate names only that), not 127.0.0.1. */
  readonly onEngineAddress?: boolean;
}

/** Recording proxies in front of a testbed's engines, on ports the system picks. */
export class EngineRecorder {
  private proxies: RecordingProxy[] = [];
  /** `host:port` of each engine → its proxy's. */
  readonly addresses = new Map<string, string>();

  /** The proxies' addresses, for the manager's discovery. */
  async start(engines: readonly TestEngine[], tls: RecorderTls): Promise<string> {
    this.proxies = await Promise.all(
      engines.map((engine) =>
        startRecordingProxy({
          label: engine.name,
          listen: { host: tls.onEngineAddress ? engine.host : '127.0.0.1', port: 0 },
          engine: { host: engine.host, port: engine.port },
          tlsDir: tls.dir(engine),
          ...(tls.identity ? { identity: tls.identity } : {}),
        }),
      ),
    );
    engines.forEach((engine, i) => this.addresses.set(`${engine.host}:${engine.port}`, this.proxies[i]!.addr));
    return this.proxies.map((proxy) => proxy.addr).join(',');
  }

  /** After every manager stopped: the engines' requests judged against the audit log at `auditPath`, written as `suite`'s section. */
  judge(suite: string, auditPath: string): InvariantReport {
    const report = judgeEngineRequests(this.requests(), readAuditLog(auditPath), this.proxies.length);
    writeInvariantSection(suite, report);
    return report;
  }

  requests(): RecordedRequest[] {
    return this.proxies.flatMap((proxy) => proxy.requests);
  }

  async stop(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.stop()));
  }
}

export const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), '../bench/results/access-invariant.md');

const TITLE = '# Nothing reaches an engine unjudged (issue 42, item 1)';
const INTRO = [
  'Each access suite below ran with a recording proxy in front of every engine (`recordEngines` of test/e2e/access-support.ts; the rule is test/e2e/access-invariant.ts).',
  "Per route family: engine requests judged (a client's, forwarded), the manager's own reading of the engine, the audit log's allowed and denied lines, and engine requests no allowed line explains (must be 0).",
  'Each suite rewrites its own section when it runs.',
].join('\n');

/** The suite's section of the results file, the other suites' sections kept. */
export function writeInvariantSection(suite: string, report: InvariantReport, file = RESULTS_FILE): void {
  const heading = `## ${suite}`;
  const body = [
    heading,
    '',
    `${new Date().toISOString().slice(0, 10)}: engine requests ${report.received} (judged ${report.judged}, the manager's own ${report.own}); audited ${report.allowed + report.denied} (allowed ${report.allowed}, denied ${report.denied}); **unexplained ${report.unexplained.length}**`,
    '',
    '| route family | engine: judged | engine: manager own | audited allowed | audited denied | unexplained |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.rows.map((r) => `| \`${r.family}\` | ${r.judged} | ${r.own} | ${r.allowed} | ${r.denied} | ${r.unexplained} |`),
    ...(report.unexplained.length > 0 ? ['', 'Unexplained:', '', ...report.unexplained.map((line) => `- \`${line}\``)] : []),
    '',
  ].join('\n');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `${TITLE}\n\n${INTRO}\n\n`;
  const sections = text.split(/^(?=## )/m);
  const head = sections[0]!;
  const rest = sections.slice(1).filter((section) => !section.startsWith(`${heading}\n`));
  const all = [...rest, `${body}\n`].sort((a, b) => a.localeCompare(b));
  writeFileSync(file, [head, ...all].join('').replace(/\n+$/, '\n'));
}

/**
 * The suite's last test (declare it last: it stops the manager): nothing its engines received is
 * left unexplained. The cluster must have been started with `recordEngines: true`; `stopOthers`
 * stops other managers that discover the same proxies and write the same audit log.
 */
export function itJudgedEveryEngineRequest(suite: string, cluster: () => AccessCluster, stopOthers?: () => Promise<void>): void {
  itJudgedEngineRequests(suite, async () => {
    // other managers on the same engines (and audit log) stop first: their streams' lines too
    await stopOthers?.();
    return cluster().engineInvariant(suite);
  });
}

/** The same for a suite that runs its manager itself: `judge` stops it and judges (EngineRecorder.judge). */
export function itJudgedEngineRequests(suite: string, judge: () => Promise<InvariantReport>): void {
  describe('nothing reaches an engine unjudged (issue 42, item 1)', () => {
    it("every request the engines received is the manager's own or explained by an allowed, audited request", async () => {
      const report = await judge();
      console.log(
        `${suite}: engine requests ${report.received} (judged ${report.judged}, own ${report.own}), audited allowed ${report.allowed}, denied ${report.denied}, unexplained ${report.unexplained.length}`,
      );
      expect(report.judged).toBeGreaterThan(0);
      expect(report.unexplained).toEqual([]);
    }, 60_000);
  });
}
