import { existsSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Loader } from 'cosmiconfig';
import { loadJsConfig } from './load-js.js';
import type { SwarmConfigInput } from './input.js';
import { validateConfigShape } from './schema.js';
import { CoreErrors } from '../errors.js';

export const CONFIG_SEARCH_PLACES: readonly string[] = [
  'package.json',
  '.swarmrc',
  '.swarmrc.json',
  '.swarmrc.yaml',
  '.swarmrc.yml',
  'swarm.config.js',
  'swarm.config.mjs',
  'swarm.config.cjs',
  'swarm.config.ts',
];

export interface LoadedConfigFile {
  readonly input: SwarmConfigInput;
  readonly filepath: string;
  /** Plugins named in the file resolve from here. */
  readonly dir: string;
}

export interface LoadConfigOptions {
  /** `--config PATH`: load exactly this file. */
  readonly path?: string;
  /** Where the upward search starts (default: the current directory). */
  readonly cwd?: string;
}

/**
 * Find and read the config file: `--config PATH` if given, otherwise the first of
 * CONFIG_SEARCH_PLACES found from `cwd` upwards. Returns undefined when there is none (defaults
 * then apply). The file's content is shape-checked; errors name the key path.
 */
export async function loadConfigFile(options: LoadConfigOptions = {}): Promise<LoadedConfigFile | undefined> {
  const cwd = options.cwd ?? process.cwd();
  // Imported lazily: hosts that embed swarm with a config object never need it.
  const { cosmiconfig, defaultLoaders } = await import('cosmiconfig');
  // Every loader notes the file it reads, so an error names the file rather than the folder searched.
  let reading: string | undefined;
  const noting =
    (loader: Loader): Loader =>
    (filepath, content) => {
      reading = filepath;
      return loader(filepath, content);
    };
  const loaders = Object.fromEntries(Object.entries(defaultLoaders).map(([extension, loader]) => [extension, noting(loader)]));
  loaders['.js'] = noting(loadJsConfig);
  const explorer = cosmiconfig('swarm', { searchPlaces: [...CONFIG_SEARCH_PLACES], searchStrategy: 'global', cache: false, loaders });
  let result;
  if (options.path !== undefined) {
    const filepath = resolve(cwd, options.path);
    if (!existsSync(filepath)) throw CoreErrors.configFileNotFound({ path: filepath });
    result = await readWith(
      () => explorer.load(filepath),
      () => reading ?? filepath,
    );
  } else {
    result = await readWith(
      () => explorer.search(cwd),
      () => reading ?? cwd,
    );
  }
  if (!result) return undefined;
  const input = validateConfigShape(result.config ?? {}, result.filepath);
  return { input, filepath: result.filepath, dir: dirname(result.filepath) };
}

/** What to do about a file that does not read, by its kind. */
function fixFor(file: string): string {
  const name = basename(file);
  if (name === 'package.json') return 'fix the JSON of package.json (its "swarm" key is the config)';
  const extension = extname(name);
  if (['.js', '.mjs', '.cjs', '.ts'].includes(extension)) {
    return `fix the JavaScript in ${name}: it must export the config object (export default { ... } in .js or .mjs, module.exports = { ... } in .cjs)`;
  }
  if (extension === '.yaml' || extension === '.yml') return `fix the YAML in ${name}`;
  if (extension === '.json') return `fix the JSON in ${name}`;
  return `fix ${name}: it holds JSON or YAML`;
}

async function readWith<T>(read: () => Promise<T>, where: () => string): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const file = where();
    throw CoreErrors.configUnreadable(
      { where: file, reason: (error as Error).message, fix: fixFor(file) },
      { cause: error, details: { file } },
    );
  }
}
