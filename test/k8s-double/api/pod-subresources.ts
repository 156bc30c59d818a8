// Pod subresources: binding (what a scheduler posts), eviction, log streams and the exec and
// attach WebSocket sessions, which the pod's node (its kubelet) serves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { Json, JsonObject } from '../model/decode.js';
import { aggregate, fieldError, renderFieldError, type FieldError } from '../model/field-errors.js';
import { findResource, storeName, type ResourceDef } from '../model/resources.js';
import { GoTimeParseError, now, queryTime } from '../model/time.js';
import type { KObject, Store } from '../store/store.js';
import { readObject } from './bodies.js';
import { sendJson } from './http-io.js';
import type { LogOptions, NodeAgents, PodAgent } from './node-agents.js';
import type { Registry } from './registry.js';
import type { ResourceRequest } from './request-info.js';
import { ChannelStreams, chooseProtocol, exitStatus } from './remotecommand.js';
import { ApiError, errors, successStatus } from './status.js';
import type { Loose } from '../model/loose.js';

/** Binds a pod to a node as the binding subresource does: spec.nodeName and PodScheduled=True. */
export function assignToNode(store: Store, current: KObject, nodeName: string, annotations?: Record<string, string>): KObject {
  const pod = structuredClone(current);
  (pod.spec as Loose).nodeName = nodeName;
  if (annotations) pod.metadata.annotations = { ...pod.metadata.annotations, ...annotations };
  const status = (pod.status ??= {}) as Loose;
  const conditions = ((status.conditions ?? []) as Loose[]).filter((c) => c.type !== 'PodScheduled');
  conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now() });
  status.conditions = conditions;
  return store.put('pods', pod);
}

/** ValidatePodBinding (pkg/apis/core/validation/validation.go). */
function validatePodBinding(target: Record<string, string>): FieldError[] {
  const errors: FieldError[] = [];
  if (target.kind && target.kind !== 'Node') errors.push(fieldError.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if (!target.name) errors.push(fieldError.required('target.name'));
  return errors;
}

const flag = (query: URLSearchParams, name: string): boolean => ['true', '1', 'True', 't'].includes(query.get(name) ?? '');

/** The container a log/exec/attach request means (validateContainer in the API server's pod strategy). */
export function containerFor(pod: KObject, requested: string | null): string {
  const spec = pod.spec as Loose;
  const all = [
    ...((spec.initContainers ?? []) as Loose[]),
    ...((spec.containers ?? []) as Loose[]),
    ...((spec.ephemeralContainers ?? []) as Loose[]),
  ].map((c) => c.name as string);
  if (!requested) {
    const containers = (spec.containers ?? []) as Loose[];
    if (containers.length === 1) return containers[0]!.name as string;
    if (containers.length === 0) throw errors.badRequest(`a container name must be specified for pod ${pod.metadata.name}`);
    throw errors.badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(requested)) throw errors.badRequest(`container ${requested} is not valid for pod ${pod.metadata.name}`);
  return requested;
}

export class PodSubresources {
  constructor(
    private readonly registry: Registry,
    private readonly agents: NodeAgents,
  ) {}

  static protocolFor(offered: Set<string>): string | undefined {
    return chooseProtocol(offered);
  }

  async handle(
    def: ResourceDef,
    info: ResourceRequest,
    query: URLSearchParams,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    switch (info.subresource) {
      case 'binding':
        if (request.method !== 'POST') throw errors.methodNotSupported({ group: '', resource: 'pods/binding' }, info.verb);
        return this.bind(def, info, await readObject(request, 'Binding'), query, response);
      case 'eviction':
        if (request.method !== 'POST') throw errors.methodNotSupported({ group: '', resource: 'pods/eviction' }, info.verb);
        return this.evict(def, info, await readObject(request, 'Eviction'), response);
      case 'log':
        if (request.method !== 'GET') throw errors.methodNotSupported({ group: '', resource: 'pods/log' }, info.verb);
        return this.logs(def, info, query, response);
      default:
        // exec and attach without an Upgrade header
        throw errors.badRequest('Upgrade request required');
    }
  }

  async bind(def: ResourceDef, info: ResourceRequest, body: Json, query: URLSearchParams, response: ServerResponse): Promise<void> {
    const bindingDef = { ...def, kind: 'Binding', schema: 'io.k8s.api.core.v1.Binding' };
    const binding = this.registry.decodeBody(bindingDef, body, {
      fieldValidation: query.get('fieldValidation') === 'Strict' ? 'Strict' : 'Ignore',
    });
    // BindingREST.Create (pkg/registry/core/pod/storage/storage.go): the body names the pod itself
    const name = binding.metadata.name ?? '';
    if (name !== info.name) throw errors.badRequest('name in URL does not match name in Binding object');
    const target = (binding.target ?? {}) as Record<string, string>;
    const problems = validatePodBinding(target);
    // returned as a plain aggregate error, which the API server answers as a 500 without a reason
    if (problems.length) throw errors.unknown(aggregate(problems.map(renderFieldError)));
    const current = this.registry.store.peek(storeName(def), `${info.namespace}/${name}`);
    if (!current) throw errors.notFound({ group: '', resource: 'pods' }, name);
    const bindingResource = { group: '', resource: 'pods/binding' };
    if (current.metadata.deletionTimestamp)
      throw errors.conflict(bindingResource, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = current.spec as Loose;
    if (spec.nodeName) throw errors.conflict(bindingResource, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    if (query.get('dryRun') !== 'All') assignToNode(this.registry.store, current, target.name ?? '', binding.metadata.annotations);
    sendJson(response, 201, { ...successStatus(), code: 201 });
  }

  private async evict(def: ResourceDef, info: ResourceRequest, body: Json, response: ServerResponse): Promise<void> {
    const options = ((body as JsonObject).deleteOptions ?? {}) as Loose;
    this.registry.delete(def, info.namespace, info.name!, {
      gracePeriodSeconds: options.gracePeriodSeconds,
      preconditions: options.preconditions,
      dryRun: Array.isArray(options.dryRun) && options.dryRun.includes('All'),
    });
    sendJson(response, 201, { ...successStatus(), code: 201 });
  }

  private agentOf(pod: KObject): PodAgent | undefined {
    const nodeName = (pod.spec as Loose).nodeName as string | undefined;
    return nodeName ? this.agents.agentFor(nodeName) : undefined;
  }

  private async logs(def: ResourceDef, info: ResourceRequest, query: URLSearchParams, response: ServerResponse): Promise<void> {
    const pod = this.registry.get(def, info.namespace, info.name!);
    const container = containerFor(pod, query.get('container'));
    const options: LogOptions = {
      container,
      follow: flag(query, 'follow'),
      previous: flag(query, 'previous'),
      timestamps: flag(query, 'timestamps'),
    };
    const problems: Array<{ type: 'FieldValueInvalid' | 'FieldValueForbidden'; field: string; body: string }> = [];
    const number = (name: string) => {
      const text = query.get(name);
      if (text === null) return undefined;
      if (!/^-?\d+$/.test(text))
        throw errors.badRequest(`${name}: Invalid value: "${text}": strconv.ParseInt: parsing "${text}": invalid syntax`);
      return Number(text);
    };
    options.tailLines = number('tailLines');
    options.sinceSeconds = number('sinceSeconds');
    options.limitBytes = number('limitBytes');
    const sinceTime = query.get('sinceTime');
    try {
      // decoded as a metav1.Time query parameter (UnmarshalQueryParameter), refused with time.Parse's error
      options.sinceTime = sinceTime === null ? undefined : queryTime(sinceTime);
    } catch (error) {
      if (error instanceof GoTimeParseError) throw errors.badRequest(error.message);
      throw error;
    }
    if (options.tailLines !== undefined && options.tailLines < 0)
      problems.push({
        type: 'FieldValueInvalid',
        field: 'tailLines',
        body: `Invalid value: ${options.tailLines}: must be greater than or equal to 0`,
      });
    if (options.sinceSeconds !== undefined && options.sinceSeconds < 1)
      problems.push({
        type: 'FieldValueInvalid',
        field: 'sinceSeconds',
        body: `Invalid value: ${options.sinceSeconds}: must be greater than 0`,
      });
    if (options.limitBytes !== undefined && options.limitBytes < 1)
      problems.push({
        type: 'FieldValueInvalid',
        field: 'limitBytes',
        body: `Invalid value: ${options.limitBytes}: must be greater than 0`,
      });
    if (options.sinceSeconds !== undefined && options.sinceTime)
      problems.push({
        type: 'FieldValueForbidden',
        field: '',
        body: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
      });
    if (problems.length) throw errors.invalid('', 'PodLogOptions', '', problems);
    const agent = this.agentOf(pod);
    if (!agent) {
      // not scheduled (or on a node no kubelet serves): the API server answers with nothing
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      return void response.end();
    }
    const stream = await agent.logs(pod, options);
    response.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    let sent = 0;
    stream.on('data', (chunk: Buffer) => {
      if (options.limitBytes !== undefined) {
        const room = options.limitBytes - sent;
        if (room <= 0) return;
        chunk = chunk.subarray(0, room);
      }
      sent += chunk.length;
      response.write(chunk);
      if (options.limitBytes !== undefined && sent >= options.limitBytes) {
        stream.destroy();
        response.end();
      }
    });
    stream.on('end', () => response.end());
    stream.on('error', () => response.end());
    response.on('close', () => stream.destroy());
  }

  /** Checks an exec/attach request before the WebSocket handshake; `run` serves the session. */
  prepareStream(info: ResourceRequest, query: URLSearchParams): { run: (socket: WebSocket) => void } {
    const def = findResource('', 'v1', 'pods')!;
    const pod = this.registry.get(def, info.namespace, info.name!);
    const container = containerFor(pod, query.get('container'));
    const options = { stdin: flag(query, 'stdin'), stdout: flag(query, 'stdout'), stderr: flag(query, 'stderr'), tty: flag(query, 'tty') };
    if (!options.stdin && !options.stdout && !options.stderr)
      throw errors.badRequest('you must specify at least 1 of stdin, stdout, stderr');
    const command = query.getAll('command');
    if (info.subresource === 'exec' && command.length === 0)
      throw errors.badRequest('you must specify at least one command for the container');
    const nodeName = (pod.spec as Loose).nodeName as string | undefined;
    if (!nodeName) throw errors.badRequest(`pod ${pod.metadata.name} does not have a host assigned`);
    const agent = this.agentOf(pod);
    if (!agent) throw errors.internal(`error dialing backend: the node ${nodeName} has no kubelet answering`);
    return {
      run: (socket) => {
        const streams = new ChannelStreams({ socket, protocol: socket.protocol, options });
        const session =
          info.subresource === 'exec'
            ? agent.exec(pod, container, command, streams.io).then((code) => streams.finish(exitStatus(code, command)))
            : agent.attach(pod, container, streams.io).then(() => streams.finish({ metadata: {}, status: 'Success' }));
        session.catch((error: unknown) => {
          const status =
            error instanceof ApiError
              ? error.status
              : errors.internal(`error executing command in container: ${(error as Error).message}`).status;
          streams.finish({ ...status, metadata: {} });
        });
      },
    };
  }
}
