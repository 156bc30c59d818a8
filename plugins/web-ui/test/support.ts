import type { ClusterEvent, Container, Node, NodeSnapshot, NodeStatus } from '@swarm/plugin-sdk';
import type { ManagerView, WebRequest, WebResponse, WebStream } from '@swarm/plugin-sdk/web';
import { readSnapshot, SnapshotVersions } from '@swarm/plugin-sdk/helpers';

/** A node whose facts a test changes; `changed()` gives it a new snapshot, as a driver does. */
export class TestNode implements Node {
  readonly id: string;
  readonly ip: string;
  readonly addr: string;
  nodeStatus: NodeStatus = 'healthy';
  error: string | undefined;
  list: Container[] = [];
  labelMap: Record<string, string>;
  private readonly versions = new SnapshotVersions();

  constructor(
    readonly name: string,
    options: { labels?: Record<string, string> } = {},
  ) {
    const index = Number(name.replace(/\D/g, '') || '1');
    this.id = `ID-${name}`;
    this.ip = `127.0.0.${index + 1}`;
    this.addr = `${this.ip}:2375`;
    this.labelMap = { storagedriver: 'vfs', ...(options.labels ?? {}) };
  }

  addContainer(name: string, state = 'running', extra: Partial<Container> = {}): Container {
    const container = {
      id: `${name}-id`.padEnd(64, '0'),
      name,
      names: [name],
      image: 'busybox:local',
      imageId: 'sha256:1',
      state,
      labels: {},
      config: { Image: 'busybox:local' },
      summary: {
        Id: `${name}-id`,
        Names: [`/${name}`],
        Image: 'busybox:local',
        Created: 1,
        Status: state === 'running' ? 'Up 1 second' : 'Exited (0)',
      },
      node: this,
      ...extra,
    } as Container;
    this.list = [...this.list, container];
    return container;
  }

  changed(): void {
    this.versions.changed();
  }

  snapshot(): NodeSnapshot {
    return this.versions.current((version) => readSnapshot(this, version));
  }

  watch(listener: () => void): () => void {
    return this.versions.watch(listener);
  }

  images() {
    return [];
  }
  image() {
    return undefined;
  }
  containers(): readonly Container[] {
    return this.list;
  }
  container(idOrName: string) {
    return this.list.find((container) => container.id === idOrName || container.name === idOrName);
  }
  totalCpus() {
    return 4;
  }
  usedCpus() {
    return 1;
  }
  totalMemory() {
    return 8 * 2 ** 30;
  }
  usedMemory() {
    return 2 ** 30;
  }
  labels() {
    return this.labelMap;
  }
  status() {
    return this.nodeStatus;
  }
  isHealthy() {
    return this.nodeStatus === 'healthy';
  }
  healthIndicator() {
    return 100;
  }
  lastError() {
    return this.error;
  }
  endpoint() {
    return undefined;
  }
}

/** A ManagerView over test nodes: what a web extension reads, with nothing behind it. */
export class TestView {
  nodeList: Node[] = [];
  readonly listeners = new Set<(event: ClusterEvent) => void>();
  readonly explained: unknown[] = [];

  readonly view: ManagerView = {
    version: '0.1.0-test',
    apiVersion: '1.3.0',
    driver: 'test',
    strategy: 'spread',
    filters: ['health'],
    nodes: () => this.nodeList,
    containers: () => this.nodeList.flatMap((node) => node.containers()),
    subscribe: (listener) => {
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    },
    clusterRows: () => [['Strategy', 'spread']],
    runConfig: (args) => {
      if (args[0] === '--bad')
        throw Object.assign(new Error("unknown option '--bad'"), { code: 'SWARM_ERR_INVALID_ARGUMENT', httpStatus: 400 });
      return { Image: args.at(-1)!, Env: [] };
    },
    explain: (config) => {
      this.explained.push(config);
      return {
        explanation: {
          strategy: 'spread',
          filters: ['health'],
          softDropped: false,
          nodes: [],
          chosen: 'node1',
          summary: '1/1 nodes are available.',
        },
        text: `explained ${config.Image}\n`,
      };
    },
    placement: () => ({ reschedulePolicy: 'on-node-failure', constraints: ['zone==a'], affinities: [], history: [] }),
    plugins: () => [],
    discovery: () => ({ uri: 'nodes://x', scheme: 'nodes', state: 'ok', entries: 1 }),
    replication: () => ({ enabled: false, role: 'primary' }),
    metrics: () => ({
      uptimeSeconds: 1,
      rssBytes: 1,
      heapUsedBytes: 1,
      nodes: { healthy: 1, unhealthy: 0, pending: 0, disconnected: 0 },
      containers: { total: 0, running: 0 },
      apiRequests: 0,
      apiErrors: 0,
      placements: { scheduled: 0, failed: 0 },
      events: 0,
    }),
  };

  emit(event: ClusterEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

export interface SseFrame {
  event: string;
  data: string;
}

/** A WebStream that records what is written; `accepting = false` makes writes report congestion. */
export class RecordingStream implements WebStream {
  text = '';
  accepting = true;
  ended = false;
  private release: (() => void) | undefined;

  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return this.accepting;
  }
  drained(): Promise<void> {
    return new Promise((resolve) => (this.release = resolve));
  }
  drain(): void {
    this.accepting = true;
    this.release?.();
  }
  end(): void {
    this.ended = true;
  }
  frames(): SseFrame[] {
    return this.text
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => {
        const [event, data] = block.split('\n');
        return { event: event!.slice('event: '.length), data: data!.slice('data: '.length) };
      });
  }
  parsed<T>(event: string): T[] {
    return this.frames()
      .filter((frame) => frame.event === event)
      .map((frame) => JSON.parse(frame.data) as T);
  }
}

export interface Answered {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
  json<T>(): T;
}

/** Call one route's handler with an in-memory request. */
export async function callRoute(
  handle: (request: WebRequest, response: WebResponse) => void | Promise<void>,
  request: Partial<WebRequest> & { body?: unknown },
): Promise<Answered> {
  let answered: Answered | undefined;
  const answer = (status: number, body: string | Uint8Array, headers: Readonly<Record<string, string>> = {}) => {
    const buffer = Buffer.from(body);
    answered = { status, body: buffer, headers: { ...headers }, json: <T>() => JSON.parse(buffer.toString()) as T };
  };
  const response: WebResponse = {
    send: answer,
    json: (status, value, headers) => answer(status, JSON.stringify(value), { ...headers, 'Content-Type': 'application/json' }),
    stream: () => {
      throw new Error('not a stream route');
    },
  };
  await handle(
    {
      method: 'GET',
      path: '/',
      params: {},
      query: new URLSearchParams(),
      headers: {},
      signal: new AbortController().signal,
      json: async () => request.body,
      ...request,
    },
    response,
  );
  if (!answered) throw new Error('the route did not answer');
  return answered;
}
