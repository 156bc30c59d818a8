#!/usr/bin/env node
// Committed (and executable) launcher, so `npx swarm` works right after `npm ci && npm run build`:
// the compiled CLI in dist/ is not executable by itself.
import { statSync } from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';

// Five V8 settings for a process that keeps a large, slowly changing state (docs/performance.md,
// "The launcher's V8 flags", has the measurements). A node flag given on the command line wins
// (NODE_OPTIONS may carry neither).
// - A full GC once the heap is twice what survived the last one, not up to four times (V8's default
//   for a busy process): every `docker ps -a` or start-up burst leaves garbage, and the default let
//   RSS grow to several times the live heap.
// - No allocation-site pretenuring: the start-up load keeps nearly everything it allocates, so V8
//   learns to allocate those sites' objects in the old generation, and keeps doing so afterwards,
//   when the same sites only make the refreshes' short-lived garbage. That garbage then fills the
//   old generation and costs a full GC every few seconds, which was most of the API's tail latency.
// - No memory reducer: it runs full GCs when the process looks idle, to hand memory back. With a
//   large live heap (the cluster's state) each one is hundreds of milliseconds of marking on a busy
//   machine, and it starts in a lull between clients' bursts, so the next calls wait for it. The
//   heap-growing setting above already bounds the heap to about twice the live state.
const given = (name) => process.execArgv.some((flag) => flag.includes(name));
if (!given('heap-growing-percent')) v8.setFlagsFromString('--heap-growing-percent=100');
if (!given('allocation-site-pretenuring')) v8.setFlagsFromString('--no-allocation-site-pretenuring');
// --no-memory-reducer is read only when the heap is set up, before this runs; its start delay is
// read each time it would start, so a delay of ~23 days has the same effect.
if (!given('memory-reducer')) v8.setFlagsFromString('--gc-memory-reducer-start-delay-ms=2000000000');
// - A young generation that stays at its first size (1 MB semi-spaces) until the heap holds more than
//   a small cluster's state. V8 grows it (to 16 MB semi-spaces) while the start-up's reads survive,
//   and with the memory reducer off nothing shrinks it again: a manager of a few engines kept a young
//   generation several times what it allocates between two scavenges once started. Past the
//   threshold V8's growth applies as before, so large clusters, whose start-up crosses it early, keep
//   what they had (docs/performance.md). The growth factor is read whenever the young generation
//   would grow; the maximum semi-space size could only be set on node's command line.
// - No optimizing compiler (TurboFan) while the process has no work for it: its code in node's
//   binary, its compile jobs' memory and the optimized code are a large part of what a small, mostly
//   idle manager holds, and the lower tiers serve its few calls about as fast. It comes on for good
//   once the heap outgrows a small cluster's state (a large cluster's start-up crosses that within
//   its first second or two), or the process keeps half a core busy for a second, or after start-up
//   it spends more than a twentieth of a core over a few seconds (an idle manager of a few engines
//   stays under a hundredth); the code that is hot then is optimized as usual.
// One watch for both, stopped once both have come on.
const SMALL_HEAP = 64 * 1024 * 1024;
const OPTIMIZER_HEAP = 32 * 1024 * 1024;
const WATCH_MS = 250;
const SECOND_TICKS = 4;
const WINDOW_TICKS = 20;
const START_UP_MS = 5_000;
let smallYoungGeneration = !given('semi-space');
let noOptimizer = !process.execArgv.some((flag) => /^--((no-)?(turbofan|opt)|max-opt|jitless)\b/.test(flag));
if (smallYoungGeneration) v8.setFlagsFromString('--semi-space-growth-factor=1');
if (noOptimizer) v8.setFlagsFromString('--no-turbofan');
if (smallYoungGeneration || noOptimizer) {
  const samples = []; // [ms since start, CPU ms]
  const watch = setInterval(() => {
    const heapUsed = v8.getHeapStatistics().used_heap_size;
    if (smallYoungGeneration && heapUsed >= SMALL_HEAP) {
      v8.setFlagsFromString('--semi-space-growth-factor=2');
      smallYoungGeneration = false;
    }
    if (noOptimizer) {
      const { user, system } = process.cpuUsage();
      samples.push([performance.now(), (user + system) / 1000]);
      if (samples.length > WINDOW_TICKS + 1) samples.shift();
      // The share of a core used over the last `ticks` ticks.
      const share = (ticks) => {
        if (samples.length <= ticks) return 0;
        const [[since, cpuSince], [now, cpuNow]] = [samples.at(-1 - ticks), samples.at(-1)];
        return (cpuNow - cpuSince) / (now - since);
      };
      // The window must not hold the start-up (loading the CLI, the first reads of the engines).
      const busy = share(SECOND_TICKS) > 0.5 || (samples[0][0] >= START_UP_MS && share(WINDOW_TICKS) > 0.05);
      if (heapUsed >= OPTIMIZER_HEAP || busy) {
        v8.setFlagsFromString('--turbofan');
        noOptimizer = false;
      }
    }
    if (!smallYoungGeneration && !noOptimizer) clearInterval(watch);
  }, WATCH_MS);
  watch.unref();
}

// Node 22.1+ caches compiled code of every module (bundle, SDK, plugins) between starts; Node 20 has no such API.
module.enableCompileCache?.();

// `npm run build` bundles the CLI (scripts/bundle-cli.mjs) because it starts much faster. After a
// plain `tsc -b core` the bundle is older than the compiled files: run those, never stale code.
const bundle = new URL('../dist/bundle/swarm.js', import.meta.url);
const compiled = new URL('../dist/.tsbuildinfo', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;

await import(mtime(bundle) >= mtime(compiled) ? bundle.href : '../dist/cli/bin.js');
