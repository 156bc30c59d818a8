#!/usr/bin/env node
// Committed (and executable) launcher, so `npx swarm` works right after `npm ci && npm run build`:
// the compiled CLI in dist/ is not executable by itself.
import { statSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ caches compiled code of every module (bundle, SDK, plugins) between starts; Node 20 has no such API.
module.enableCompileCache?.();

// `npm run build` bundles the CLI (scripts/bundle-cli.mjs) because it starts much faster. After a
// plain `tsc -b core` the bundle is older than the compiled files: run those, never stale code.
const bundle = new URL('../dist/bundle/swarm.js', import.meta.url);
const compiled = new URL('../dist/.tsbuildinfo', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;

await import(mtime(bundle) >= mtime(compiled) ? bundle.href : '../dist/cli/bin.js');
