#!/usr/bin/env node
// Committed (and executable) launcher, so `npx swarm` works right after `npm ci && npm run build`:
// the compiled CLI in dist/ is not executable by itself.
import '../dist/cli/bin.js';
