import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startHollowCluster } from '@swarm/core/hollow';

const USAGE = `Start N hollow Docker engines in this process and print their discovery list.

  npx tsc -p test/bench/hollow && node test/bench/hollow/dist/cli.js [options]

  --count N         engines (default 10)
  --containers N    running containers preloaded on each engine (default 0)
  --delay MS        per-call delay for every call (default: measured real-engine latencies)
  --first-slot N    first address slot (slot 0 = 127.0.2.0:2375; default 0); names count from it too
  --label k=v       engine label, repeatable
  --label-cycle k=a,b,c   label k with a, b, c, a, ... engine by engine (zones, racks)
  --file PATH       also write the list one address per line (for file:// discovery)
Prints "nodes://h:p,h:p,..." once all listen; SIGUSR2 prints the requests answered
per route so far; SIGINT/SIGTERM prints them and stops.`;

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '10' },
    containers: { type: 'string', default: '0' },
    delay: { type: 'string' },
    'first-slot': { type: 'string', default: '0' },
    label: { type: 'string', multiple: true, default: [] },
    'label-cycle': { type: 'string', multiple: true, default: [] },
    file: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const cycles = values['label-cycle'].map((spec) => {
  const [key, list = ''] = spec.split('=');
  return { key: key!, values: list.split(',') };
});
const labels = (index: number): string[] => [
  ...values.label,
  ...cycles.map((cycle) => `${cycle.key}=${cycle.values[index % cycle.values.length]}`),
];

const started = performance.now();
const cluster = await startHollowCluster({
  count: Number(values.count),
  containersPerEngine: Number(values.containers),
  firstSlot: Number(values['first-slot']),
  firstIndex: Number(values['first-slot']),
  labels,
  ...(values.delay === undefined ? {} : { delayMs: Number(values.delay) }),
});
if (values.file !== undefined) writeFileSync(values.file, `${cluster.engines.map((engine) => engine.addr).join('\n')}\n`);
console.error(
  `${cluster.engines.length} hollow engines listening after ${Math.round(performance.now() - started)} ms, RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
);
console.log(`nodes://${cluster.addrs}`);

const printCalls = (): void => console.error(`engine calls: ${JSON.stringify(cluster.calls())}`);
process.on('SIGUSR2', printCalls);
const shutdown = (): void => {
  printCalls();
  void cluster.stop().then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
