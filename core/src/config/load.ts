import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
  const { cosmiconfig } = await import('cosmiconfig');
  const explorer = cosmiconfig('swarm', { searchPlaces: [...CONFIG_SEARCH_PLACES], searchStrategy: 'global', cache: false });
  let result;
  if (options.path !== undefined) {
    const filepath = resolve(cwd, options.path);
    if (!existsSync(filepath)) throw CoreErrors.configFileNotFound({ path: filepath });
    result = await readWith(() => explorer.load(filepath), filepath);
  } else {
    result = await readWith(() => explorer.search(cwd), cwd);
  }
  if (!result) return undefined;
  const input = validateConfigShape(result.config ?? {}, result.filepath);
  return { input, filepath: result.filepath, dir: dirname(result.filepath) };
}

async function readWith<T>(read: () => Promise<T>, where: string): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw CoreErrors.configUnreadable({ where, reason: (error as Error).message }, { cause: error });
  }
}
