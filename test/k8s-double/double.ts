// The Kubernetes double: an API server, its controllers, a cluster DNS, and kubelets backed by
// real Docker engines or hollow, started together, with hooks tests use to cause faults.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { Authenticator, Authorizer, type DenyRule, type UserInfo } from './api/auth.js';
import { KUBERNETES_SERVICE_IP } from './api/admission.js';
import type { MetricsMode } from './api/metrics.js';
import { RbacAuthorizer } from './api/rbac.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from './api/rbac-bootstrap.js';
import { Registry } from './api/registry.js';
import { ApiServer } from './api/server.js';
import { EndpointsController } from './controllers/endpoints.js';
import { EventRecorder } from './controllers/events.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { NamespaceController } from './controllers/namespaces.js';
import { NodeLifecycleController } from './controllers/node-lifecycle.js';
import { Scheduler } from './controllers/scheduler.js';
import { VolumeController } from './controllers/volumes.js';
import { ClusterDns } from './dns/cluster-dns.js';
import { EngineKubelet, type EngineNodeOptions } from './kubelet/engine-kubelet.js';
import { HollowKubelet } from './kubelet/hollow-kubelet.js';
import { DEFAULT_TIMING, type KubeletContext, type KubeletTiming, type NodeOptions } from './kubelet/kubelet.js';
import { KubeletManager } from './kubelet/manager.js';
import type { Json } from './model/decode.js';
import { findResource, RESOURCES } from './model/resources.js';
import { createPki, type ClusterPki } from './pki/certificates.js';
import { writeKubeconfig, type KubeconfigUser } from './pki/kubeconfig.js';
import { Store, type KObject } from './store/store.js';

export interface HollowNodeOptions extends NodeOptions {
  hollow: true;
}

export type NodeSpec = (Omit<EngineNodeOptions, 'name'> & { name?: string }) | HollowNodeOptions;

export interface KubernetesDoubleOptions {
  /** Loopback address the API server listens on (default 127.0.0.1) and its port (0: any free one). */
  host?: string;
  port?: number;
  /** Folder for certificates, kubeconfigs and pod volumes (a new temporary one by default, removed on stop). */
  dir?: string;
  nodes?: NodeSpec[];
  /** Hollow nodes named `<prefix><i>` (default prefix `hollow-`). */
  hollowNodes?: number | { count: number; prefix?: string; labels?: Record<string, string>; capacity?: NodeOptions['capacity'] };
  /** metrics.k8s.io: served (default), absent (404, not in discovery) or unavailable (503). */
  metrics?: MetricsMode;
  /** The built-in default-scheduler (on by default: a real cluster has one). */
  scheduler?: boolean;
  /** How often watches that asked for bookmarks get one (the API server: about a minute). */
  bookmarkIntervalMs?: number;
  /** Events kept per resource for watches that resume (the watch cache window). */
  historyCapacity?: number;
  kubelet?: Partial<KubeletTiming>;
  /** node-monitor-grace-period: a node whose lease is older turns Unknown (40 s). */
  nodeMonitorGracePeriodSeconds?: number;
  /** Image of the pod sandbox ("pause") containers on the engines. */
  pauseImage?: string;
  clusterDomain?: string;
}

export interface ClientUser {
  name: string;
  groups?: string[];
  /** `token` (default) or a client certificate. */
  auth?: 'token' | 'cert';
}

const PODS = findResource('', 'v1', 'pods')!;

/** An engine's own name (`docker info`), e.g. node1 for the testbed's first engine. */
async function engineName(engine: EngineNodeOptions['engine']): Promise<string> {
  const docker = new Docker('socketPath' in engine ? { socketPath: engine.socketPath } : { host: engine.host, port: engine.port });
  const info = await docker.info();
  return info.Name;
}

export class KubernetesDouble {
  readonly store: Store;
  readonly registry: Registry;
  readonly authenticator = new Authenticator();
  readonly authorizer: Authorizer;
  readonly events: EventRecorder;
  readonly kubelets: KubeletManager;
  private server: ApiServer | undefined;
  private dns: ClusterDns | undefined;
  private pki: ClusterPki | undefined;
  private dir = '';
  private ownsDir = false;
  private metricsMode: MetricsMode;
  private readonly controllers: Array<{ stop(): void }> = [];
  private hollowCount = 0;
  /** The API server's URL (https://127.0.0.1:port). */
  url = '';
  /** A kubeconfig with contexts `double-admin` (current; client certificate, system:masters), `double-developer` (client certificate) and `double-token` (bearer token). */
  kubeconfig = '';
  /** The bearer token of the `double-token` user (`token-user`). */
  token = '';
  /** A bearer token of a `system:masters` user (not in the kubeconfig), for raw requests in tests. */
  adminToken = '';

  constructor(readonly options: KubernetesDoubleOptions = {}) {
    this.store = new Store(options.historyCapacity ?? 1000);
    this.registry = new Registry(this.store);
    this.authorizer = new Authorizer(new RbacAuthorizer(this.store));
    this.events = new EventRecorder(this.store);
    this.kubelets = new KubeletManager(this.store);
    this.metricsMode = options.metrics ?? 'served';
  }

  get ca(): string {
    return this.pki!.ca;
  }

  get caFile(): string {
    return this.pki!.caFile;
  }

  async start(): Promise<void> {
    const options = this.options;
    const host = options.host ?? '127.0.0.1';
    this.ownsDir = !options.dir;
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'k8s-double-'));
    mkdirSync(join(this.dir, 'pki'), { recursive: true });
    this.pki = await createPki(join(this.dir, 'pki'), [host]);
    this.bootstrapNamespaces();
    this.bootstrapRbac();
    const namespaces = new NamespaceController(this.registry, this.pki.ca);
    namespaces.start();
    this.controllers.push(namespaces);
    this.server = new ApiServer({
      host,
      port: options.port ?? 0,
      tls: { key: this.pki.server.key, cert: this.pki.server.cert, ca: this.pki.ca },
      store: this.store,
      registry: this.registry,
      authenticator: this.authenticator,
      authorizer: this.authorizer,
      agents: this.kubelets,
      metricsMode: () => this.metricsMode,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    });
    await this.server.start();
    this.url = this.server.address;
    this.bootstrapKubernetesService(host, Number(new URL(this.url).port));
    const gc = new GarbageCollector(this.registry);
    gc.start();
    const endpoints = new EndpointsController(this.store);
    endpoints.start();
    const lifecycle = new NodeLifecycleController({
      registry: this.registry,
      events: this.events,
      gracePeriodSeconds: options.nodeMonitorGracePeriodSeconds ?? 40,
    });
    lifecycle.start();
    this.registry.create(findResource('storage.k8s.io', 'v1', 'storageclasses')!, undefined, VolumeController.defaultClass());
    const volumes = new VolumeController({ registry: this.registry, events: this.events, root: join(this.dir, 'volumes') });
    volumes.start();
    this.controllers.push(gc, endpoints, lifecycle, volumes, this.kubelets);
    if (options.scheduler !== false) {
      const scheduler = new Scheduler(this.registry, this.events);
      scheduler.start();
      this.controllers.push(scheduler);
    }
    this.kubelets.start();
    await this.writeClientConfig();
    for (const node of options.nodes ?? []) await this.addNode(node);
    const hollow = typeof options.hollowNodes === 'number' ? { count: options.hollowNodes } : options.hollowNodes;
    if (hollow) this.addHollowNodes(hollow.count, hollow);
  }

  private bootstrapNamespaces(): void {
    const namespaces = RESOURCES.find((def) => def.resource === 'namespaces')!;
    for (const name of ['default', 'kube-node-lease', 'kube-public', 'kube-system'])
      this.registry.create(namespaces, undefined, { metadata: { name } });
  }

  /** The API server's default roles and bindings (rbac-bootstrap.ts). */
  private bootstrapRbac(): void {
    const roles = findResource('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;
    for (const role of BOOTSTRAP_CLUSTER_ROLES) this.registry.create(roles, undefined, role);
    const bindings = findResource('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings')!;
    for (const binding of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) this.registry.create(bindings, undefined, binding);
  }

  /** The `kubernetes` Service in `default` and its endpoints: the API server's own address. */
  private bootstrapKubernetesService(host: string, port: number): void {
    const services = findResource('', 'v1', 'services')!;
    this.registry.create(services, 'default', {
      metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { clusterIP: KUBERNETES_SERVICE_IP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }] },
    });
    const endpoints = findResource('', 'v1', 'endpoints')!;
    this.registry.create(endpoints, 'default', {
      metadata: { name: 'kubernetes', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: host }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    });
    const slices = findResource('discovery.k8s.io', 'v1', 'endpointslices')!;
    this.registry.create(slices, 'default', {
      metadata: { name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [host], conditions: { ready: true } }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    });
  }

  private async writeClientConfig(): Promise<void> {
    const pki = this.pki!;
    const admin = await pki.issueClient('kubernetes-admin', ['system:masters']);
    const developer = await pki.issueClient('developer', ['developers']);
    this.token = randomBytes(24).toString('base64url');
    this.authenticator.addToken(this.token, { username: 'token-user', groups: [] });
    this.adminToken = randomBytes(24).toString('base64url');
    this.authenticator.addToken(this.adminToken, { username: 'admin', groups: ['system:masters'] });
    const users: KubeconfigUser[] = [
      { name: 'admin', cert: admin.cert, key: admin.key },
      { name: 'developer', cert: developer.cert, key: developer.key },
      { name: 'token', token: this.token },
    ];
    this.kubeconfig = writeKubeconfig(join(this.dir, 'kubeconfig'), { server: this.url, ca: pki.ca, users });
  }

  /** Writes a kubeconfig for one more user (a bearer token by default) and returns its path. */
  async kubeconfigFor(
    user: ClientUser,
    file = join(this.dir, `kubeconfig-${user.name.replace(/[^A-Za-z0-9_.-]/g, '_')}`),
  ): Promise<string> {
    if (user.auth === 'cert') {
      const pair = await this.pki!.issueClient(user.name, user.groups ?? []);
      return writeKubeconfig(file, { server: this.url, ca: this.pki!.ca, users: [{ name: user.name, cert: pair.cert, key: pair.key }] });
    }
    const token = randomBytes(24).toString('base64url');
    this.authenticator.addToken(token, { username: user.name, groups: user.groups ?? [] });
    return writeKubeconfig(file, { server: this.url, ca: this.pki!.ca, users: [{ name: user.name, token }] });
  }

  /** A bearer token that authenticates as the service account (what its pods get mounted). */
  serviceAccountToken(namespace: string, account = 'default'): string {
    const token = `sa.${randomBytes(24).toString('base64url')}`;
    this.authenticator.addToken(token, {
      username: `system:serviceaccount:${namespace}:${account}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    });
    return token;
  }

  private kubeletContext(): KubeletContext {
    return {
      store: this.store,
      registry: this.registry,
      events: this.events,
      authenticator: this.authenticator,
      timing: { ...DEFAULT_TIMING, ...this.options.kubelet },
    };
  }

  /** Adds a node: an engine-backed one (its engine must answer) or a hollow one. */
  async addNode(nodeSpec: NodeSpec): Promise<string> {
    const spec = 'hollow' in nodeSpec || nodeSpec.name ? nodeSpec : { ...nodeSpec, name: await engineName(nodeSpec.engine) };
    if (this.kubelets.kubelets.has(spec.name!)) throw new Error(`k8s double: node ${spec.name} exists already`);
    if ('hollow' in spec) {
      const kubelet = new HollowKubelet({ options: spec, context: this.kubeletContext(), index: this.hollowCount++ });
      this.kubelets.add(kubelet);
      kubelet.start();
      return spec.name;
    }
    const name = spec.name!;
    const kubelet = new EngineKubelet({
      engineOptions: { pauseImage: this.options.pauseImage, ...spec, name },
      context: this.kubeletContext(),
      volumesRoot: join(this.dir, 'kubelet', name),
    });
    await kubelet.connect();
    if (kubelet.bridgeGateway) {
      this.dns ??= new ClusterDns({ store: this.store, domain: this.options.clusterDomain ?? 'cluster.local' });
      try {
        await this.dns.listen(kubelet.bridgeGateway);
        const settings = { nameserver: kubelet.bridgeGateway, clusterDomain: this.dns.domain };
        kubelet.dns = () => settings;
      } catch (error) {
        throw new Error(
          `k8s double: the cluster DNS cannot listen on ${kubelet.bridgeGateway}:53 (${(error as Error).message}); pods on ${name} would not resolve service names`,
          { cause: error },
        );
      }
    }
    this.kubelets.add(kubelet);
    return name;
  }

  addHollowNodes(
    count: number,
    options: { prefix?: string; labels?: Record<string, string>; capacity?: NodeOptions['capacity'] } = {},
  ): string[] {
    const names: string[] = [];
    const start = this.hollowCount;
    for (let i = 0; i < count; i++) {
      const name = `${options.prefix ?? 'hollow-'}${start + i}`;
      const kubelet = new HollowKubelet({
        options: { name, labels: options.labels, capacity: options.capacity },
        context: this.kubeletContext(),
        index: this.hollowCount++,
      });
      this.kubelets.add(kubelet);
      kubelet.start();
      names.push(name);
    }
    return names;
  }

  /** Stops a node's kubelet and deletes its Node (its pods stay, as on a real cluster, until deleted). */
  async removeNode(name: string): Promise<void> {
    const kubelet = this.kubelets.remove(name);
    if (kubelet instanceof EngineKubelet) await kubelet.shutdown();
    const nodes = findResource('', 'v1', 'nodes')!;
    if (this.store.peek('nodes', name)) this.registry.delete(nodes, undefined, name);
  }

  /** The kubelet process stops (containers keep running): its lease expires and the node turns Unknown. */
  stopKubelet(name: string): void {
    this.kubelet(name).stop();
  }

  startKubelet(name: string): void {
    this.kubelet(name).start();
  }

  /** Makes the kubelet report Ready=False (`false`), or its real state again (`undefined`). */
  setNodeReady(name: string, ready: boolean | undefined, message = 'container runtime is down'): void {
    const kubelet = this.kubelet(name);
    kubelet.forcedReady =
      ready === undefined ? undefined : ready ? { status: 'True' } : { status: 'False', reason: 'KubeletNotReady', message };
    kubelet.tick(true);
  }

  private kubelet(name: string) {
    const kubelet = this.kubelets.kubelets.get(name);
    if (!kubelet) throw new Error(`k8s double: no node ${name}`);
    return kubelet;
  }

  cordon(name: string, unschedulable = true): void {
    this.patchNode(name, { spec: { unschedulable: unschedulable || null } });
  }

  taint(name: string, taint: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }): void {
    const node = this.store.peek('nodes', name);
    if (!node) throw new Error(`k8s double: no node ${name}`);
    const taints = (((node.spec as Record<string, unknown>).taints ?? []) as Array<{ key: string; effect: string }>).filter(
      (t) => !(t.key === taint.key && t.effect === taint.effect),
    );
    this.patchNode(name, { spec: { taints: [...taints, taint] } });
  }

  untaint(name: string, key: string): void {
    const node = this.store.peek('nodes', name);
    if (!node) throw new Error(`k8s double: no node ${name}`);
    const taints = (((node.spec as Record<string, unknown>).taints ?? []) as Array<{ key: string }>).filter((t) => t.key !== key);
    this.patchNode(name, { spec: { taints: taints.length ? taints : null } });
  }

  private patchNode(name: string, patch: Json): void {
    this.registry.patch(findResource('', 'v1', 'nodes')!, undefined, name, 'merge', patch);
  }

  /** Forgets the event history (all resources, or one such as `pods`): older resourceVersions get 410 Gone. */
  compact(resource?: string): void {
    this.store.compact(resource);
  }

  /** Cuts every open watch connection mid-stream (a network fault); returns how many there were. */
  dropWatches(): number {
    return this.server?.dropWatches() ?? 0;
  }

  /** Ends every open watch cleanly, as a server-side timeout does; returns how many there were. */
  endWatches(): number {
    return this.server?.endWatches() ?? 0;
  }

  /** The API server goes away (connections refused, open ones cut); the cluster keeps running. */
  async disconnect(): Promise<void> {
    await this.server?.stop();
  }

  /** The API server answers again on the same address, with everything that happened meanwhile. */
  async reconnect(): Promise<void> {
    await this.server?.start();
  }

  /** Forbids what the rule matches (403 with the RBAC authorizer's text); returns a function that lifts it. */
  deny(rule: DenyRule): () => void {
    this.authorizer.denyRules.push(rule);
    return () => {
      this.authorizer.denyRules = this.authorizer.denyRules.filter((r) => r !== rule);
    };
  }

  clearDenyRules(): void {
    this.authorizer.denyRules = [];
  }

  setMetrics(mode: MetricsMode): void {
    this.metricsMode = mode;
  }

  addToken(token: string, user: UserInfo): void {
    this.authenticator.addToken(token, user);
  }

  revokeToken(token: string): void {
    this.authenticator.removeToken(token);
  }

  /** A stored object (a copy), e.g. `get('pods', 'default', 'web')`, `get('nodes', undefined, 'node1')`. */
  get(resource: string, namespace: string | undefined, name: string): KObject | undefined {
    return this.store.get(resource, namespace ? `${namespace}/${name}` : name);
  }

  list(resource: string, namespace?: string): KObject[] {
    return this.store.values(resource, namespace ? `${namespace}/` : undefined).map((object) => structuredClone(object));
  }

  /** Deletes a pod at once, as `kubectl delete --force --grace-period=0` does. */
  forceDeletePod(namespace: string, name: string): void {
    this.registry.delete(PODS, namespace, name, { gracePeriodSeconds: 0 });
  }

  async stop(): Promise<void> {
    for (const controller of this.controllers.splice(0)) controller.stop();
    await Promise.all(
      [...this.kubelets.kubelets.values()].map(async (kubelet) => {
        kubelet.stop();
        if (kubelet instanceof EngineKubelet) await kubelet.shutdown();
      }),
    );
    await this.server?.stop();
    await this.dns?.close();
    if (this.ownsDir && this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

export type { DenyRule, UserInfo, MetricsMode };
