import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { startHollowProcess, startManager } from '../scale/children.js';
import { timeToHealthy } from '../scale/phases.js';
import { loadNow, machine } from '../scale/report.js';

const USAGE = `Web view benchmark: page weight and time to first render of /swarm/ui/ in headless Chromium,
in front of hollow engines, at a small cluster (the baseline) and a large one, same run.

  npm run bench:web-ui -- [options]

  --nodes 10,1000    cluster sizes, the first is the baseline (default 10,1000)
  --containers 30    running containers per engine (default 30)
  --loads 5          page loads per size, each in a fresh browser context (no cache)
  --port 24960       manager port (the next sizes use the next ports)
  --healthy-timeout 300   seconds to wait for every engine to turn Healthy
  --out FILE         results file (default test/bench/results/web-ui.md)`;

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10,1000' },
    containers: { type: 'string', default: '30' },
    loads: { type: 'string', default: '5' },
    port: { type: 'string', default: '24960' },
    'healthy-timeout': { type: 'string', default: '300' },
    out: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const RESULTS = fileURLToPath(new URL('../../../results/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../../../.artifacts/web-ui-bench/', import.meta.url));
const CHROMIUM = process.env.SWARM_CHROMIUM ?? '/usr/bin/chromium';
const out = values.out ?? join(RESULTS, 'web-ui.md');

/** One page load, measured in the page and on the wire. */
interface Load {
  /** Navigation start → first contentful paint (the header). */
  fcpMs: number;
  /** Navigation start → the map's first render with nodes (`swarm-ui:map-rendered`). */
  renderMs: number;
  /** Compressed bytes of the page itself: document, script, stylesheet (what the ≤ 200 kB target counts). */
  pageBytes: number;
  /** Compressed bytes of the live stream until the map rendered (the snapshot), and its decoded size. */
  snapshotBytes: number;
  snapshotDecodedBytes: number;
  /** Elements in the document at first render, and node columns among them (virtualization). */
  elements: number;
  columns: number;
  heapMb: number;
}

interface SizeResult {
  nodes: number;
  healthyMs: number | undefined;
  loads: Load[];
  load: { start: number; end: number };
}

async function measureLoad(browser: Browser, url: string, screenshot?: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const urls = new Map<string, string>();
  const encoded = new Map<string, number>();
  const decoded = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', (event) => urls.set(event.requestId, event.request.url));
  cdp.on('Network.dataReceived', (event) => {
    encoded.set(event.requestId, (encoded.get(event.requestId) ?? 0) + event.encodedDataLength);
    decoded.set(event.requestId, (decoded.get(event.requestId) ?? 0) + event.dataLength);
  });
  cdp.on('Network.loadingFinished', (event) => encoded.set(event.requestId, event.encodedDataLength));
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('swarm-ui:map-rendered').length > 0, undefined, { timeout: 120_000 });
  await page.locator('[data-node]').first().waitFor();
  const inPage = await page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN;
    const render = performance.getEntriesByName('swarm-ui:map-rendered')[0]!.startTime;
    const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return {
      fcpMs: fcp,
      renderMs: render,
      elements: document.getElementsByTagName('*').length,
      columns: document.querySelectorAll('[data-node]').length,
      heapMb: (memory?.usedJSHeapSize ?? 0) / 2 ** 20,
    };
  });
  let pageBytes = 0;
  let snapshotBytes = 0;
  let snapshotDecodedBytes = 0;
  for (const [id, requestUrl] of urls) {
    if (requestUrl.includes('/api/live')) {
      snapshotBytes += encoded.get(id) ?? 0;
      snapshotDecodedBytes += decoded.get(id) ?? 0;
    } else if (!requestUrl.includes('/api/')) pageBytes += encoded.get(id) ?? 0;
  }
  if (screenshot) {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(ARTIFACTS, screenshot) });
  }
  await context.close();
  return { ...inPage, pageBytes, snapshotBytes, snapshotDecodedBytes };
}

async function measureSize(browser: Browser, nodes: number, port: number): Promise<SizeResult> {
  const containers = Number(values.containers);
  const hollow = await startHollowProcess(nodes, containers, undefined, ['--label-cycle', 'zone=a,b,c,d']);
  const startedAt = performance.now();
  const manager = startManager(port, hollow.discovery, undefined, ['--ui']);
  try {
    const healthyMs = await timeToHealthy(port, nodes, startedAt, Number(values['healthy-timeout']) * 1000);
    if (healthyMs === undefined) throw new Error(`not all ${nodes} nodes became healthy:\n${manager.output()}`);
    const url = `http://127.0.0.1:${port}/swarm/ui/`;
    const start = loadNow();
    // one load to warm the manager's per-node JSON and the browser's code caches, not counted
    await measureLoad(browser, url);
    const loads: Load[] = [];
    for (let index = 0; index < Number(values.loads); index++) {
      loads.push(await measureLoad(browser, url, index === 0 ? `map-${nodes}.png` : undefined));
      console.error(`${nodes} nodes, load ${index + 1}: first render ${Math.round(loads.at(-1)!.renderMs)} ms`);
    }
    return { nodes, healthyMs, loads, load: { start, end: loadNow() } };
  } finally {
    await manager.stop();
    await hollow.child.stop();
  }
}

function spread(values: readonly number[], format: (value: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return `${format(sorted[0]!)} / ${format(median)} / ${format(sorted.at(-1)!)}`;
}

const medianOf = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const msText = (value: number): string => `${Math.round(value)} ms`;
const kB = (value: number): string => `${(value / 1000).toFixed(1)} kB`;

function report(results: readonly SizeResult[], date: string): string {
  const base = results[0]!;
  const rows = results.map((result) => {
    const ratio = medianOf(result.loads.map((load) => load.renderMs)) / medianOf(base.loads.map((load) => load.renderMs));
    return [
      `| ${result.nodes} × ${values.containers}`,
      spread(
        result.loads.map((load) => load.renderMs),
        msText,
      ),
      `×${ratio.toFixed(2)}`,
      spread(
        result.loads.map((load) => load.fcpMs),
        msText,
      ),
      kB(medianOf(result.loads.map((load) => load.pageBytes))),
      `${kB(medianOf(result.loads.map((load) => load.snapshotBytes)))} (${kB(medianOf(result.loads.map((load) => load.snapshotDecodedBytes)))} decoded)`,
      `${medianOf(result.loads.map((load) => load.columns))} / ${medianOf(result.loads.map((load) => load.elements))}`,
      `${medianOf(result.loads.map((load) => load.heapMb)).toFixed(1)} MB`,
      `${result.load.start.toFixed(2)} → ${result.load.end.toFixed(2)} |`,
    ].join(' | ');
  });
  return [
    '# Web view: page weight and time to first render',
    '',
    `- Date: ${date}`,
    `- Machine: ${machine()}; browser: ${CHROMIUM} (headless, playwright-core), 1400×900, cache disabled, a fresh context per load`,
    `- Command: \`${`npm run bench:web-ui -- ${process.argv.slice(2).join(' ')}`.trim()}\``,
    `- Cluster: hollow engines (measured real-engine delays), ${values.containers} running containers each, labels zone=a..d; \`swarm manage --ui\`, the bundled CLI users run`,
    `- Each size: one warm-up load, then ${values.loads} measured loads; min / median / max. The first size is the same-run baseline for the ratio.`,
    '- First render: navigation start → the map rendered with nodes (the page marks `swarm-ui:map-rendered`): fetching the page, opening the live stream, the manager serializing every node, the snapshot crossing the wire, the first render.',
    '- Page: the compressed bytes of the document, script and stylesheet (target ≤ 200 kB); snapshot: the live stream until first render (gzip), the cluster data that comes with it.',
    '',
    '| nodes × containers | first render (min / median / max) | vs baseline | first contentful paint | page (compressed) | snapshot | node columns / elements in the DOM | page JS heap | load average |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

const date = new Date().toISOString();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const results: SizeResult[] = [];
try {
  let port = Number(values.port);
  for (const nodes of values.nodes.split(',').map(Number)) results.push(await measureSize(browser, nodes, port++));
} finally {
  await browser.close();
}
mkdirSync(RESULTS, { recursive: true });
const text = report(results, date);
writeFileSync(out, text);
console.log(text);
console.error(`results: ${out}; screenshots: ${ARTIFACTS}`);
