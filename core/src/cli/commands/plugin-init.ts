import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { PLUGIN_API_VERSION } from '@swarm/plugin-sdk';
import { installStep, pluginFiles, SCAFFOLD_KINDS, type ScaffoldKind } from '../scaffold/templates.js';
import { CoreErrors } from '../../errors.js';

const KINDS: readonly ScaffoldKind[] = SCAFFOLD_KINDS;
const NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The SDK this swarm runs with: its version makes the new package's range (`^1.0.0`), the same on
 * every machine that builds it; its folder is where a first install can take it from when the
 * registry has no `@swarm/plugin-sdk`, unless it is in npx's cache (`npx -p <tarballs> swarm ...`),
 * which npm may empty at any time: then the tarball npx installed it from, or nothing.
 */
function localSdk(): { range: string; dir?: string } {
  try {
    const manifest = createRequire(import.meta.url).resolve('@swarm/plugin-sdk/package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    const dir = dirname(manifest);
    const cached = /^(.*[\\/]_npx[\\/][^\\/]+)[\\/]node_modules[\\/]/.exec(dir);
    if (cached === null) return { range: `^${version}`, dir };
    const tarball = installedFrom(cached[1]!);
    return tarball === undefined ? { range: `^${version}` } : { range: `^${version}`, dir: tarball };
  } catch {
    return { range: '^1.0.0' };
  }
}

/** The tarball npx installed the SDK from, from npm's lockfile of its cache folder. */
function installedFrom(npxRoot: string): string | undefined {
  for (const lockfile of [join(npxRoot, 'node_modules', '.package-lock.json'), join(npxRoot, 'package-lock.json')]) {
    try {
      const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages?: Record<string, { resolved?: string }> };
      const resolved = lock.packages?.['node_modules/@swarm/plugin-sdk']?.resolved;
      if (resolved?.startsWith('file:') === true && resolved.endsWith('.tgz')) {
        const tarball = resolve(npxRoot, resolved.slice('file:'.length));
        if (existsSync(tarball)) return tarball;
      }
    } catch {
      // no lockfile there: try the next
    }
  }
  return undefined;
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
  const sdk = localSdk();
  const inputs = { name, kind: flags.kind as ScaffoldKind, sdkRange: sdk.range, localSdk: sdk.dir, apiVersion: PLUGIN_API_VERSION };
  const files = pluginFiles(inputs);
  for (const [file, contents] of Object.entries(files)) {
    const path = join(target, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, contents);
  }
  const shown = relative(process.cwd(), target) || '.';
  process.stdout.write(
    `Created ${flags.kind} "${name}" in ${shown}\n\n  cd ${shown}\n  ${installStep(inputs)} && npm test\n  npm pack\n\n` +
      `then npm install the tarball next to your swarm.config.js and list '${name}' in its plugins.\n` +
      `@swarm/plugin-sdk ${sdk.range} is a peer and dev dependency; once your registry has it, plain npm install does.\n`,
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
