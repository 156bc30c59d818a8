import { type SwarmError } from '@swarm/plugin-sdk';
import { Command } from 'commander';
import { buildDeployment } from '../../deployment/build-deployment.js';
import { createLogger } from '../../logging/create-logger.js';
import { loadBuiltins } from '../../plugins/builtins.js';
import { candidatePackages } from '../../plugins/candidates.js';
import { importManifest, resolvePlugin } from '../../plugins/load.js';
import { checkApiVersion, isApiCompatible } from '../../plugins/manifest.js';
import { providedKinds } from '../../plugins/stage.js';
import { repeatedPlugins } from '../../plugins/repeated-plugins.js';
import { buildAccessControl } from '../../embedding/access-control.js';
import type { LoadedPlugin } from '../../plugins/loaded-plugin.js';
import { loadCliConfig, type CliConfig, type GlobalOptions } from '../cli-config.js';
import { formatTable } from '../../util/format-table.js';

/** One row of `swarm plugins`. */
export interface PluginRow {
  /** The manifest's name, or the config's entry when the plugin did not load. */
  name: string;
  /** The npm package (or path) it resolved to, or the one `npm install` would fetch; `-` for the config's own row. */
  package: string;
  version: string;
  kinds: string[];
  /** What it registers: `filter gpu`, `strategy fewest-containers`. */
  provides: string[];
  apiVersion: string;
  compatible: boolean;
  builtin: boolean;
  resolved: string;
  error?: string;
}

function kindsOf(plugin: LoadedPlugin): { kinds: string[]; provides: string[]; error?: string } {
  try {
    const { kinds, names } = providedKinds(plugin);
    return { kinds, provides: names };
  } catch (error) {
    return { kinds: [...plugin.declaredKinds], provides: [], error: (error as Error).message };
  }
}

/** The incompatibility message (with its two ways out), or undefined when compatible. */
function incompatibility(plugin: LoadedPlugin): string | undefined {
  try {
    checkApiVersion(plugin.manifest, plugin.packageName);
    return undefined;
  } catch (error) {
    return (error as SwarmError).message;
  }
}

function rowOf(plugin: LoadedPlugin): PluginRow {
  const kindsAndError = kindsOf(plugin);
  const { kinds, provides } = kindsAndError;
  const compatible = isApiCompatible(plugin.manifest.apiVersion);
  // an incompatible plugin is a failure like any other: `swarm manage` refuses it first
  const error = compatible ? kindsAndError.error : incompatibility(plugin);
  return {
    name: plugin.manifest.name,
    package: plugin.packageName,
    version: plugin.manifest.version,
    kinds,
    provides,
    apiVersion: plugin.manifest.apiVersion,
    compatible,
    builtin: plugin.builtin,
    resolved: plugin.dir,
    ...(error ? { error } : {}),
  };
}

/** A config's plugin as listed: its row, and the plugin when it could be imported. */
interface ConfiguredRow {
  readonly row: PluginRow;
  readonly plugin?: LoadedPlugin;
}

/** Rows for the config's plugins: listed even when incompatible or broken, never thrown. */
async function configuredRows(specs: readonly string[], configDir: string): Promise<ConfiguredRow[]> {
  return Promise.all(
    specs.map(async (spec): Promise<ConfiguredRow> => {
      const install = candidatePackages(spec).find((name) => name.includes('swarm-plugin-')) ?? spec;
      const base = {
        name: spec,
        package: install,
        version: '-',
        kinds: [],
        provides: [],
        apiVersion: '-',
        compatible: false,
        builtin: false,
      };
      let resolved = '-';
      try {
        const location = resolvePlugin(spec, configDir);
        base.package = location.packageName;
        resolved = location.dir;
        const manifest = await importManifest(location);
        const plugin: LoadedPlugin = {
          spec,
          packageName: location.packageName,
          manifest,
          dir: location.dir,
          entry: location.entry,
          builtin: false,
          declaredKinds: location.packageJson?.swarm?.kinds ?? [],
        };
        return { row: rowOf(plugin), plugin };
      } catch (error) {
        return { row: { ...base, resolved, error: (error as Error).message } };
      }
    }),
  );
}

/**
 * The config's rows as manage loads them: a built-in listed in the config is the built-in (one
 * row); a package listed twice, or a second package claiming a plugin's name, is refused on its
 * row with manage's words.
 */
function configuredAsManage(builtins: readonly LoadedPlugin[], configured: readonly ConfiguredRow[]): PluginRow[] {
  const builtinDirs = new Set(builtins.map((plugin) => plugin.dir));
  const kept = configured.filter((entry) => entry.plugin === undefined || !builtinDirs.has(entry.plugin.dir));
  const loaded = kept.flatMap((entry) => (entry.plugin ? [entry.plugin] : []));
  const repeated = repeatedPlugins([...builtins, ...loaded]);
  return kept.map(({ row, plugin }) => {
    const refusal = plugin && repeated.get(plugin);
    // the package listed twice provides nothing twice: its one message is the listing's
    return refusal ? { ...row, provides: [], error: refusal.message } : row;
  });
}

/** A name two plugins provide stops `swarm manage` (both are named): each later row says which it repeats. */
function markDuplicates(rows: PluginRow[]): void {
  const first = new Map<string, PluginRow>();
  for (const row of rows) {
    for (const provided of row.provides) {
      const earlier = first.get(provided);
      if (!earlier) {
        first.set(provided, row);
        continue;
      }
      const clash = `${provided} is also provided by ${earlier.name}${earlier.builtin ? ' (built in)' : ''}`;
      row.error = row.error === undefined ? clash : `${row.error}; ${clash}`;
    }
  }
}

/**
 * What `swarm manage` would refuse beyond the plugins' own rows (a filter, strategy, driver or web
 * extension no plugin provides), found by building the deployment as manage does: built, not
 * started, so nothing connects anywhere. The refusal becomes a row of its own, named `config`.
 */
async function manageRefusal(cli: CliConfig, rows: readonly PluginRow[]): Promise<PluginRow | undefined> {
  // a plugin row that failed already stops manage, with the error that row shows
  if (rows.some((row) => row.error !== undefined || !row.compatible)) return undefined;
  try {
    const logger = await createLogger({ level: 'silent' });
    const deployment = await buildDeployment(cli.resolved, { configDir: cli.configDir, logger });
    // the access plugins' factories judge their options as manage has them do, before it listens
    await buildAccessControl(deployment, cli.configDir, logger);
    return undefined;
  } catch (error) {
    return configRow(cli.configFile ?? cli.configDir, (error as Error).message);
  }
}

/** The row of the config's own refusal (one that cannot be read, or that manage refuses as a whole). */
function configRow(resolved: string, error: string): PluginRow {
  return {
    name: 'config',
    package: '-',
    version: '-',
    kinds: [],
    provides: [],
    apiVersion: '-',
    compatible: false,
    builtin: false,
    resolved,
    error,
  };
}

async function plugins(flags: { json?: boolean }, command: Command): Promise<void> {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const builtins = await loadBuiltins();
  let cli: CliConfig | undefined;
  let unreadable: PluginRow | undefined;
  try {
    cli = await loadCliConfig(globals, {});
  } catch (error) {
    // a config manage cannot read is a failure like any other: its row, exit 1
    unreadable = configRow(globals.config ?? process.cwd(), (error as Error).message);
  }
  const rows: PluginRow[] = [
    ...builtins.plugins.map(rowOf),
    ...builtins.failures.map((failure) => ({
      name: failure.packageName,
      package: failure.packageName,
      version: '-',
      kinds: [],
      provides: [],
      apiVersion: '-',
      compatible: false,
      builtin: true,
      resolved: failure.dir,
      error: failure.error.message,
    })),
    ...(cli ? configuredAsManage(builtins.plugins, await configuredRows(cli.resolved.config.plugins, cli.configDir)) : []),
  ];
  markDuplicates(rows);
  const refusal = cli ? await manageRefusal(cli, rows) : unreadable;
  if (refusal) rows.push(refusal);
  // a row that is an error or incompatible would stop `swarm manage`: scripts can tell by the exit code
  if (rows.some((row) => row.error !== undefined || !row.compatible)) process.exitCode = 1;
  // and, as every command's error, one line on stderr: the config could not be read at all
  if (unreadable?.error) process.stderr.write(`${unreadable.error}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const table = rows.map((row) => [
    row.name,
    row.version,
    row.kinds.join(',') || '-',
    row.provides.join(', ') || '-',
    row.apiVersion,
    row.error && row.apiVersion === '-' ? 'error' : row.compatible ? 'yes' : 'no',
    row.resolved,
  ]);
  process.stdout.write(formatTable(['NAME', 'VERSION', 'KINDS', 'PROVIDES', 'API', 'COMPATIBLE', 'RESOLVED FROM'], table));
  for (const row of rows) if (row.error) process.stdout.write(`${row.name}: ${row.error}\n`);
}

export function pluginsCommand(): Command {
  return new Command('plugins')
    .description('List the plugins swarm loads: built-ins and those named in the config')
    .option('--json', 'print JSON instead of a table')
    .addHelpText(
      'after',
      "\nExit status: 0 when swarm manage would load this config, 1 when it would refuse it (each failure is a row with its error; the config's own is the row named config).",
    )
    .action(plugins);
}
