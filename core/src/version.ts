import { readFileSync } from 'node:fs';

/** swarm's own version (core's package.json), shown by `--version` and `/version`. */
export const SWARM_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
