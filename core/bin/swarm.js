#!/usr/bin/env node
// Committed (and executable) launcher, so `npx swarm` works right after `npm ci && npm run build`:
// the compiled CLI in dist/ is not executable by itself.
import { statSync } from 'node:fs';
import module from 'node:module';
import v8 from 'node:v8';

// A full GC once the heap is twice what survived the last one, not up to four times (V8's
// default for a busy process): `swarm manage` keeps ~150 MB for 1,000 engines × 30 containers,
// and each `docker ps -a` of 30,000 rows or start-up burst leaves tens of MB of garbage, so the
// default let RSS reach ~600-700 MB for that. Measured at that scale: peak RSS 601 → 437 MB for
// 1-3 more CPU-seconds to Healthy, latencies unchanged (test/bench/results/scale-notes.md,
// "Evening"). A node flag given on the command line wins (NODE_OPTIONS may not carry this one).
if (!process.execArgv.some((flag) => flag.includes('heap-growing-percent'))) v8.setFlagsFromString('--heap-growing-percent=100');

// Node 22.1+ caches compiled code of every module (bundle, SDK, plugins) between starts; Node 20 has no such API.
module.enableCompileCache?.();

// `npm run build` bundles the CLI (scripts/bundle-cli.mjs) because it starts much faster. After a
// plain `tsc -b core` the bundle is older than the compiled files: run those, never stale code.
const bundle = new URL('../dist/bundle/swarm.js', import.meta.url);
const compiled = new URL('../dist/.tsbuildinfo', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;

await import(mtime(bundle) >= mtime(compiled) ? bundle.href : '../dist/cli/bin.js');
