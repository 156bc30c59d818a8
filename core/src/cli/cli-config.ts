import type { Logger } from '@swarm/plugin-sdk';
import type { SwarmConfigInput } from '../config/input.js';
import type { ConfigLayer } from '../config/layers.js';
import { loadConfigFile } from '../config/load.js';
import { resolveConfig, type ResolvedConfig } from '../config/resolve.js';
import { createLogger, type LogFormat } from '../logging/create-logger.js';

export interface GlobalOptions {
  config?: string;
  debug?: boolean;
  logLevel?: string;
  logFormat?: LogFormat;
}

export interface CliConfig {
  readonly resolved: ResolvedConfig;
  /** The config file's folder, or the current directory without a file. */
  readonly configDir: string;
  readonly configFile: string | undefined;
  readonly logger: Logger;
}

/** Config file (found or `--config`), overridden by the command's flags, over the defaults. */
export async function loadCliConfig(globals: GlobalOptions, flags: SwarmConfigInput): Promise<CliConfig> {
  const file = await loadConfigFile({ path: globals.config });
  const logLevel = globals.debug ? 'debug' : globals.logLevel === 'panic' ? 'fatal' : globals.logLevel;
  const flagLayer: SwarmConfigInput = logLevel ? { ...flags, logLevel } : flags;
  const layers: ConfigLayer[] = [];
  if (file) layers.push({ origin: 'file', input: file.input, source: file.filepath });
  layers.push({ origin: 'flags', input: flagLayer });
  const resolved = resolveConfig(layers);
  const logger = await createLogger({ level: resolved.config.logLevel, ...(globals.logFormat ? { format: globals.logFormat } : {}) });
  return { resolved, configDir: file?.dir ?? process.cwd(), configFile: file?.filepath, logger };
}
