import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { pluginFiles, SCAFFOLD_KINDS, type ScaffoldKind } from '../scaffold/templates.js';
import { CoreErrors } from '../../errors.js';

const KINDS: readonly ScaffoldKind[] = SCAFFOLD_KINDS;
const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The SDK this swarm runs with, as a `file:` dependency: the new package builds and tests against
 * exactly the contract its host checks, with or without a registry that has `@swarm/plugin-sdk`.
 */
function sdkSpec(): string {
  try {
    const manifest = createRequire(import.meta.url).resolve('@swarm/plugin-sdk/package.json');
    return `file:${dirname(manifest)}`;
  } catch {
    return '^1.0.0';
  }
}

interface InitFlags {
  kind: string;
  dir?: string;
}

function init(name: string, flags: InitFlags): void {
  if (!NAME.test(name)) throw CoreErrors.scaffoldName({ name });
  if (!KINDS.includes(flags.kind as ScaffoldKind)) throw CoreErrors.scaffoldKind({ kind: flags.kind, kinds: KINDS.join(', ') });
  const target = resolve(flags.dir ?? `swarm-plugin-${name}`);
  if (existsSync(target)) throw CoreErrors.scaffoldExists({ dir: target });
  const files = pluginFiles({ name, kind: flags.kind as ScaffoldKind, sdkSpec: sdkSpec(), apiVersion: PLUGIN_API_VERSION });
  for (const [file, contents] of Object.entries(files)) {
    const path = join(target, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, contents);
  }
  const shown = relative(process.cwd(), target) || '.';
  process.stdout.write(
    `Created ${flags.kind} "${name}" in ${shown}\n\n  cd ${shown}\n  npm install && npm test\n  npm pack\n\nthen npm install the tarball next to your swarm.config.js and list '${name}' in its plugins.\n`,
  );
}

export function pluginCommand(): Command {
  const command = new Command('plugin').description('Work on plugins');
  command
    .command('init <name>')
    .description('Scaffold a plugin package that builds, passes the SDK conformance checks and loads')
    .option('--kind <kind>', `what the plugin provides: ${KINDS.join(' or ')}`, 'filter')
    .option('--dir <dir>', 'where to create it (default: ./swarm-plugin-<name>)')
    .action((name: string, flags: InitFlags) => init(name, flags));
  return command;
}
