/**
 * The Kubernetes driver against the Kubernetes API itself, in the same run (issue #16's targets):
 *   A. `docker run -d` (create + start through the Docker API, which returns once the container
 *      runs) against the same pod created straight through the API with its node set and watched
 *      until Running. One engine-backed node (engine 232); rounds alternate, medians per run,
 *      ratio per run; min / median / max of the ratios over the runs. Target ≤ 1.10.
 *   B. 1,000 hollow nodes in the double: `docker info` p99 and a placement decision p99 (the
 *      scheduler's dry run, POST /_swarm/v1/explain; and a whole `docker create`, which also makes
 *      the pod). Targets ≤ 50 ms.
 * Both clients are in-process HTTP clients, so neither pays a CLI's start-up. The API server double
 * runs in this process, the manager in its own. Engine 232, ports 26185-26186.
 * Adds a section to test/bench/results/k8s-driver.md.
 *
 *   npm run bench:k8s          (BENCH_RUNS=3, BENCH_ROUNDS=10, BENCH_NODES=1000)
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { machineDescription, median } from '../core-machine.js';
import { startKubernetesDouble } from '../../k8s-double/index.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SWARM = here('../../../../../../core/dist/cli/bin.js');
const RESULTS = here('../../../../results/k8s-driver.md');
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 10);
const NODES = Number(process.env['BENCH_NODES'] ?? 1000);
const ENGINE = 232;
const TESTBED = here('../../../../../testbed/testbed.sh');
const testbed = (...args: string[]) => promisify(execFile)('bash', [TESTBED, ...args]);

interface Answer {
  status: number;
  body: string;
}

function call(port: number, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function startManager(port: number, kubeconfig: string, nodes: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      SWARM,
      'manage',
      '-H',
      `tcp://127.0.0.1:${port}`,
      '-c',
      'kubernetes',
      '--cluster-opt',
      `kubernetes.kubeconfig=${kubeconfig}`,
      'k8s://',
    ],
    {
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const info = await call(port, 'GET', '/info').catch(() => undefined);
    const rows = info?.status === 200 ? ((JSON.parse(info.body) as { SystemStatus?: Array<[string, string]> }).SystemStatus ?? []) : [];
    const healthy = rows.filter(([key, value]) => key.trim() === '└ Status' && value === 'Healthy').length;
    if (healthy >= nodes) return child;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill();
  throw new Error(`manager on ${port} did not see ${nodes} healthy nodes`);
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Resolves when the pod named in the namespace has its container running. */
function runningWatch(config: k8s.KubeConfig, namespace: string): { until(name: string): Promise<void>; stop(): void } {
  const waiting = new Map<string, () => void>();
  const running = new Set<string>();
  let abort: AbortController | undefined;
  void new k8s.Watch(config)
    .watch(
      `/api/v1/namespaces/${namespace}/pods`,
      {},
      (_phase: string, pod: k8s.V1Pod) => {
        const name = pod.metadata?.name ?? '';
        if (pod.status?.containerStatuses?.[0]?.state?.running) {
          running.add(name);
          waiting.get(name)?.();
        }
      },
      () => undefined,
    )
    .then((controller) => (abort = controller));
  return {
    until: (name) => (running.has(name) ? Promise.resolve() : new Promise((resolve) => waiting.set(name, resolve))),
    stop: () => abort?.abort(),
  };
}

async function runDetached(config: k8s.KubeConfig, port: number): Promise<{ driver: number; direct: number }> {
  const api = config.makeApiClient(k8s.CoreV1Api);
  const watch = runningWatch(config, 'default');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const driver: number[] = [];
  const direct: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const name = `bench-${Date.now()}-${round}`;
    const viaDriver = async () => {
      const started = performance.now();
      const created = await call(port, 'POST', `/containers/create?name=${name}-d`, { Image: 'busybox:local', Cmd: ['sleep', '600'] });
      const id = (JSON.parse(created.body) as { Id: string }).Id;
      const start = await call(port, 'POST', `/containers/${id}/start`);
      if (start.status !== 204) throw new Error(`start: ${start.status} ${start.body}`);
      driver.push(performance.now() - started);
      return id;
    };
    const viaApi = async () => {
      const started = performance.now();
      await api.createNamespacedPod({
        namespace: 'default',
        body: {
          metadata: { name: `${name}-k` },
          spec: {
            nodeName: `node${ENGINE}`,
            terminationGracePeriodSeconds: 0,
            containers: [{ name: 'container', image: 'busybox:local', imagePullPolicy: 'IfNotPresent', command: ['sleep', '600'] }],
          },
        },
      });
      await watch.until(`${name}-k`);
      direct.push(performance.now() - started);
    };
    let id: string;
    if (round % 2 === 0) {
      id = await viaDriver();
      await viaApi();
    } else {
      await viaApi();
      id = await viaDriver();
    }
    await call(port, 'DELETE', `/containers/${id}?force=1`);
    await api.deleteNamespacedPod({ name: `${name}-k`, namespace: 'default', gracePeriodSeconds: 0 });
  }
  watch.stop();
  return { driver: median(driver), direct: median(direct) };
}

async function hollowScale(port: number): Promise<Record<string, number>> {
  const info: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const answer = await call(port, 'GET', '/info');
    if (answer.status !== 200) throw new Error(`info: ${answer.status}`);
    info.push(performance.now() - started);
  }
  const explain: number[] = [];
  const config = { Image: 'busybox:local', HostConfig: { Memory: 64 * 1024 * 1024 }, Env: ['constraint:node!=hollow-7'] };
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const answer = await call(port, 'POST', '/_swarm/v1/explain', config);
    if (answer.status !== 200) throw new Error(`explain: ${answer.status} ${answer.body}`);
    explain.push(performance.now() - started);
  }
  const create: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    const answer = await call(port, 'POST', '/containers/create', config);
    if (answer.status !== 201) throw new Error(`create: ${answer.status} ${answer.body}`);
    create.push(performance.now() - started);
    ids.push((JSON.parse(answer.body) as { Id: string }).Id);
  }
  for (const id of ids) await call(port, 'DELETE', `/containers/${id}?force=1`);
  return {
    infoP50: percentile(info, 50),
    infoP99: percentile(info, 99),
    explainP50: percentile(explain, 50),
    explainP99: percentile(explain, 99),
    createP50: percentile(create, 50),
    createP99: percentile(create, 99),
    infoBytes: (await call(port, 'GET', '/info')).body.length,
  };
}

const f = (value: number) => value.toFixed(1);

async function main(): Promise<void> {
  await testbed('up', '1', '--first', String(ENGINE));
  const lines: string[] = [];
  try {
    const double = await startKubernetesDouble({ nodes: [{ engine: { host: `127.0.0.${ENGINE + 1}`, port: 2375 } }] });
    const config = new k8s.KubeConfig();
    config.loadFromFile(double.kubeconfig);
    const manager = await startManager(26185, double.kubeconfig, 1);
    const ratios: number[] = [];
    lines.push('| run | `run -d` through the driver (median) | pod created through the API (median) | ratio |', '|---|---|---|---|');
    for (let run = 1; run <= RUNS; run++) {
      const { driver, direct } = await runDetached(config, 26185);
      ratios.push(driver / direct);
      lines.push(`| ${run} | ${f(driver)} ms | ${f(direct)} ms | ${(driver / direct).toFixed(3)} |`);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    lines.push(
      '',
      `Ratio min / median / max over ${RUNS} runs of ${ROUNDS} rounds: ${sorted[0]!.toFixed(3)} / ${median(sorted).toFixed(3)} / ${sorted[sorted.length - 1]!.toFixed(3)} (target ≤ 1.10).`,
      '',
    );
    manager.kill();
    await double.stop();

    const big = await startKubernetesDouble({ hollowNodes: NODES });
    const scaleManager = await startManager(26186, big.kubeconfig, NODES);
    lines.push(
      `| ${NODES} hollow nodes, run | info p50 / p99 | placement decision (explain) p50 / p99 | docker create p50 / p99 | info size |`,
      '|---|---|---|---|---|',
    );
    for (let run = 1; run <= RUNS; run++) {
      const result = await hollowScale(26186);
      lines.push(
        `| ${run} | ${f(result['infoP50']!)} / ${f(result['infoP99']!)} ms | ${f(result['explainP50']!)} / ${f(result['explainP99']!)} ms | ${f(result['createP50']!)} / ${f(result['createP99']!)} ms | ${Math.round(result['infoBytes']! / 1024)} KiB |`,
      );
    }
    lines.push('', 'Targets: info p99 ≤ 50 ms, placement decision p99 ≤ 50 ms.');
    scaleManager.kill();
    await big.stop();
  } finally {
    await testbed('down', '--first', String(ENGINE), '--count', '1');
  }
  const section = [
    `## Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${machineDescription()}`,
    '',
    ...lines,
    '',
  ].join('\n');
  console.log(section);
  const previous = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8').replace(/^# .*\n+/, '') : '';
  writeFileSync(RESULTS, `# Kubernetes driver benchmark (npm run bench:k8s)\n\n${section}\n${previous}`);
}

await main();
