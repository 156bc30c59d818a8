import { fileURLToPath } from 'node:url';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { ManagerView, WebExtension, WebHost, WebRequest, WebResponse, WebRoute, WebViewer } from '@swarm/plugin-sdk/web';
import { UiErrors } from './errors.js';
import { LiveCluster, type LiveClusterOptions } from './live-cluster.js';
import { presentContainer } from './present.js';
import { StaticAssets } from './static-assets.js';
import { findVisible, namedContainers } from './references.js';
import { scopeOf } from './viewer.js';
import type { ContainerDetails, ExplainAnswer, StatusAnswer, WireCluster } from './wire.js';

// The same from src/ (tests) and dist/ (the package): the page is built into dist/page.
const PAGE_DIR = fileURLToPath(new URL('../dist/page/', import.meta.url));

/** Settings `ui: { ... }` may hold. */
const KNOWN_OPTIONS = ['readOnly'];

function readOnlyOption(options: WebHost['options']): boolean {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) throw UiErrors.unknownSetting({ key, known: KNOWN_OPTIONS });
  }
  const value = options.readOnly ?? true;
  if (typeof value !== 'boolean') throw UiErrors.readOnlyNotBoolean({ value });
  return value;
}

/** The manager's figures; a scoped viewer's container counts are of the containers they see. */
function statusOf(view: ManagerView, viewer: WebViewer | undefined): StatusAnswer {
  const metrics = view.metrics();
  const sees = scopeOf(viewer);
  let containers = metrics.containers;
  if (sees) {
    const visible = view.containers().filter(sees);
    containers = { total: visible.length, running: visible.filter((container) => container.state === 'running').length };
  }
  return {
    plugins: view.plugins(),
    discovery: view.discovery(),
    replication: view.replication(),
    metrics: { ...metrics, containers },
    clusterRows: view.clusterRows(),
  };
}

/**
 * By full or short ID (the page has short ones); a prefix two containers share finds nothing. A
 * container the viewer may not see is not a candidate at all: it answers the same 404 as a missing
 * one, and never makes a prefix ambiguous (which would tell that it exists).
 */
function findContainer(view: ManagerView, id: string, viewer: WebViewer | undefined) {
  const sees = scopeOf(viewer);
  const found =
    id === '' ? [] : view.containers().filter((candidate) => candidate.id.startsWith(id) && (sees === undefined || sees(candidate)));
  if (found.length !== 1) throw UiErrors.noSuchContainer({ id });
  return found[0]!;
}

function detailsOf(view: ManagerView, id: string, viewer: WebViewer | undefined): ContainerDetails {
  const container = findContainer(view, id, viewer);
  const restart = container.config.HostConfig?.RestartPolicy as { Name?: string; MaximumRetryCount?: number } | undefined;
  const command = container.summary.Command;
  return {
    container: presentContainer(container),
    node: { name: container.node.name, addr: container.node.addr },
    status: typeof container.summary.Status === 'string' ? container.summary.Status : container.state,
    created: container.summary.Created,
    ...(typeof command === 'string' && command !== '' ? { command } : {}),
    restartPolicy: restart?.Name ? `${restart.Name}${restart.MaximumRetryCount ? `:${restart.MaximumRetryCount}` : ''}` : 'no',
    memory: container.config.HostConfig?.Memory ?? 0,
    cpus: container.reservedCpus ?? 0,
    labels: container.labels,
    placement: view.placement(container),
  };
}

/** `{ "args": [...] }`: docker run options, as `swarm schedule --explain` takes them; `{ "container": id }`: that container's own config. */
function explainConfig(view: ManagerView, body: unknown, viewer: WebViewer | undefined): ContainerConfig {
  const input = (typeof body === 'object' && body !== null ? body : {}) as { args?: unknown; container?: unknown };
  if (typeof input.container === 'string') return findContainer(view, input.container, viewer).config;
  if (!Array.isArray(input.args) || !input.args.every((arg) => typeof arg === 'string')) {
    throw UiErrors.explainBody();
  }
  if (input.args.length === 0) throw UiErrors.explainNothing();
  return view.runConfig(input.args as string[]);
}

/**
 * A scoped viewer's dry run may name only containers they see (an affinity, a link, ...), as the
 * host's own explain and create judge it: otherwise where the filters let the container go would
 * tell where another team's container runs. Another team's is the same 404 as a missing one.
 */
function checkReferences(view: ManagerView, config: ContainerConfig, viewer: WebViewer | undefined): void {
  const sees = scopeOf(viewer);
  if (!sees) return;
  for (const name of namedContainers(config)) {
    if (!findVisible(view.containers(), name, sees)) throw UiErrors.noSuchContainer({ id: name });
  }
}

/**
 * The web view: a page (a Preact app bundled at build time, shipped in the package) and the small
 * JSON and event-stream API it reads. Every route only reads the manager, and shows a viewer
 * (access control) only what `viewer.sees` lets through; the host has already authorized the
 * request itself (`swarm.web`, `swarm.web.action`), and the page's actions are Docker API calls
 * that the host authorizes as any other.
 */
export class UiExtension implements WebExtension {
  private live: LiveCluster | undefined;

  constructor(private readonly options: LiveClusterOptions & { pageDir?: string } = {}) {}

  mount(host: WebHost): readonly WebRoute[] {
    const { view } = host;
    const readOnly = readOnlyOption(host.options);
    const assets = new StaticAssets(this.options.pageDir ?? PAGE_DIR);
    const cluster: WireCluster = {
      version: view.version,
      apiVersion: view.apiVersion,
      driver: view.driver,
      strategy: view.strategy,
      filters: view.filters,
      readOnly,
    };
    const live = new LiveCluster({ view, cluster, options: this.options });
    this.live = live;
    const page = (request: WebRequest, response: WebResponse) => {
      assets.serve('/index.html', request, response);
    };
    return [
      { method: ['GET', 'HEAD'], path: '/', handle: page },
      {
        method: ['GET', 'HEAD'],
        path: '/assets/*',
        handle: (request, response) => {
          if (!assets.serve(request.path, request, response)) throw UiErrors.noSuchFile({ path: request.path });
        },
      },
      {
        method: 'GET',
        path: '/api/live',
        handle: (request, response) => {
          const stream = response.stream(
            200,
            { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
            { compress: true },
          );
          live.serve(stream, request.signal, request.viewer);
        },
      },
      { method: 'GET', path: '/api/status', handle: (request, response) => response.json(200, statusOf(view, request.viewer)) },
      {
        method: 'GET',
        path: '/api/containers/:id',
        handle: (request, response) => response.json(200, detailsOf(view, request.params.id ?? '', request.viewer)),
      },
      {
        method: 'POST',
        path: '/api/explain',
        handle: async (request, response) => {
          const config = explainConfig(view, await request.json(), request.viewer);
          checkReferences(view, config, request.viewer);
          // a viewer's dry run is the host's for them: pattern affinities (`container==/bob.*/`)
          // judged among what they see, their node limits applied
          // a viewer's dry run goes through their authorization and admission too, as their docker run would
          const { viewer } = request;
          const { explanation, text } = viewer ? await (viewer.dryRun?.(config) ?? viewer.explain(config)) : view.explain(config);
          const answer: ExplainAnswer = { text, explanation, image: config.Image };
          response.json(200, answer);
        },
      },
    ];
  }

  unmount(): void {
    this.live?.close();
    this.live = undefined;
  }
}
