import type { AccessObjectKind } from '@swarm/plugin-sdk/access';
import { splitOperation } from '../util/split-operation.js';
import { isWebExtensionPath } from '../http/web-paths.js';

/** An object a request names, before it is looked up: `container` + `web` (a name, ID or prefix). */
export interface ObjectReference {
  readonly kind: AccessObjectKind;
  readonly reference: string;
}

/** What a request asks to do, read off its method and path alone. */
export interface RequestAction {
  /** `<kind>.<verb>` (the README's action catalogue). */
  readonly action: string;
  readonly target?: ObjectReference;
  /** The create or update body is part of the question (authorizers and admission read it). */
  readonly withBody?: boolean;
}

// Container operations by method: the action each is, as the README's catalogue names them.
const CONTAINER_OPERATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  GET: {
    json: 'inspect',
    top: 'top',
    logs: 'logs',
    changes: 'changes',
    export: 'export',
    stats: 'stats',
    'attach/ws': 'attach',
    archive: 'archive',
  },
  HEAD: { archive: 'archive' },
  PUT: { archive: 'archive.write' },
  POST: {
    start: 'start',
    rename: 'rename',
    exec: 'exec',
    stop: 'stop',
    restart: 'restart',
    kill: 'kill',
    pause: 'pause',
    unpause: 'unpause',
    wait: 'wait',
    update: 'update',
    resize: 'resize',
    attach: 'attach',
    copy: 'archive',
  },
};

const SYSTEM_ROUTES: Readonly<Record<string, string>> = {
  '/_ping': 'system.ping',
  '/version': 'system.version',
  '/info': 'system.info',
  '/events': 'system.events',
  '/system/df': 'system.df',
  '/auth': 'system.auth',
  '/build': 'image.build',
  '/build/prune': 'image.prune',
  '/build/cancel': 'image.build',
  '/session': 'image.build',
  '/grpc': 'image.build',
  '/containers/json': 'container.list',
  '/containers/prune': 'container.prune',
  '/images/json': 'image.list',
  '/images/search': 'image.search',
  '/images/get': 'image.save',
  '/images/load': 'image.load',
  '/images/prune': 'image.prune',
  '/networks': 'network.list',
  '/networks/prune': 'network.prune',
  '/volumes': 'volume.list',
  '/volumes/prune': 'volume.prune',
  '/plugins': 'plugin.list',
  '/plugins/privileges': 'plugin.inspect',
  '/plugins/pull': 'plugin.install',
  '/plugins/create': 'plugin.install',
  '/_swarm/v1/explain': 'swarm.explain',
  '/_swarm/metrics': 'swarm.metrics',
  '/_swarm/healthz': 'swarm.health',
  '/_swarm/readyz': 'swarm.health',
};

const SWARM_MODE_PREFIXES = ['/swarm', '/services', '/secrets', '/configs', '/nodes', '/tasks'];

const CREATE_ROUTES: Readonly<Record<string, string>> = {
  '/containers/create': 'container.create',
  '/networks/create': 'network.create',
  '/volumes/create': 'volume.create',
};

function containerAction(method: string, rest: string): RequestAction {
  if (method === 'DELETE') return { action: 'container.remove', target: { kind: 'container', reference: rest } };
  const operations = CONTAINER_OPERATIONS[method] ?? {};
  const split = splitOperation(rest, Object.keys(operations));
  if (!split) return { action: 'container.unknown' };
  const verb = operations[split.operation] ?? 'unknown';
  return { action: `container.${verb}`, target: { kind: 'container', reference: split.name }, withBody: verb === 'update' };
}

function imageAction(method: string, rest: string): RequestAction {
  if (method === 'DELETE') return { action: 'image.remove', target: { kind: 'image', reference: rest } };
  const split = splitOperation(rest, method === 'POST' ? ['tag', 'push'] : ['json', 'history', 'get']);
  if (!split) return { action: 'image.unknown' };
  const verb = split.operation === 'json' ? 'inspect' : split.operation === 'get' ? 'save' : split.operation;
  return { action: `image.${verb}`, target: { kind: 'image', reference: split.name } };
}

function networkAction(method: string, rest: string): RequestAction {
  if (method === 'POST') {
    const split = splitOperation(rest, ['connect', 'disconnect']);
    if (!split) return { action: 'network.unknown' };
    return { action: `network.${split.operation}`, target: { kind: 'network', reference: split.name }, withBody: true };
  }
  return { action: method === 'DELETE' ? 'network.remove' : 'network.inspect', target: { kind: 'network', reference: rest } };
}

function pluginAction(method: string, rest: string): RequestAction {
  if (method === 'DELETE') return { action: 'plugin.remove', target: { kind: 'plugin', reference: rest } };
  const split = splitOperation(rest, method === 'GET' ? ['json'] : ['enable', 'disable', 'set', 'push', 'upgrade']);
  if (!split) return { action: 'plugin.unknown' };
  return {
    action: `plugin.${split.operation === 'json' ? 'inspect' : split.operation}`,
    target: { kind: 'plugin', reference: split.name },
  };
}

function execAction(path: string): RequestAction {
  const [, , id = '', operation = ''] = path.split('/');
  // Starting or resizing an exec is running a command in its container: the container's `exec`.
  const action = operation === 'json' ? 'exec.inspect' : 'container.exec';
  return { action, target: { kind: 'exec', reference: id } };
}

/**
 * The action a request is, from its method and bare path (version prefix stripped). Every path
 * has one: a path no route serves is `<kind>.unknown` (or `unknown`), which authorizers refuse
 * unless they allow everything, so a route added later without an entry here fails closed.
 */
export function requestAction(method: string, path: string, query: URLSearchParams): RequestAction {
  const fixed = SYSTEM_ROUTES[path];
  if (fixed) return { action: fixed };
  const create = CREATE_ROUTES[path];
  if (create) return { action: create, withBody: true };
  if (path === '/commit') {
    const container = query.get('container') ?? '';
    return { action: 'container.commit', target: { kind: 'container', reference: container } };
  }
  // dockerd pulls when `fromImage` has a value, whatever else is given, and imports otherwise.
  if (path === '/images/create') return { action: query.get('fromImage') ? 'image.pull' : 'image.import' };
  if (path.startsWith('/distribution/')) return { action: 'image.inspect' };
  if (path.startsWith('/containers/')) return containerAction(method, path.slice('/containers/'.length));
  if (path.startsWith('/exec/')) return execAction(path);
  if (path.startsWith('/images/')) return imageAction(method, path.slice('/images/'.length));
  if (path.startsWith('/networks/')) return networkAction(method, path.slice('/networks/'.length));
  if (path.startsWith('/volumes/')) {
    return {
      action: method === 'DELETE' ? 'volume.remove' : 'volume.inspect',
      target: { kind: 'volume', reference: path.slice('/volumes/'.length) },
    };
  }
  if (path.startsWith('/plugins/')) return pluginAction(method, path.slice('/plugins/'.length));
  if (isWebExtensionPath(path)) return { action: method === 'GET' || method === 'HEAD' ? 'swarm.web' : 'swarm.web.action' };
  // Docker's swarm-mode routes only ever answer that this is not a swarm-mode manager (503): asking
  // them reads no more than `docker info` does.
  if (SWARM_MODE_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return { action: 'system.info' };
  return { action: 'unknown' };
}
