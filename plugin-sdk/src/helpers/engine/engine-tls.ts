import { readFileSync } from 'node:fs';
import type { TlsFiles } from '../../config.js';
import { SdkErrors } from '../../errors.js';
import type { EngineEndpoint } from '../../node.js';

export type EngineTls = NonNullable<EngineEndpoint['tls']>;

const FLAG = { ca: '--tlscacert', cert: '--tlscert', key: '--tlskey' } as const;

/**
 * The PEM material for dialling engines, read once at start-up (not per engine or call): the
 * manager's `--tlscacert/--tlscert/--tlskey`, with `--tlsverify` deciding whether the engines'
 * certificates are checked. None when no file is given.
 */
export function readEngineTls(files: TlsFiles | undefined): EngineTls | undefined {
  if (!files || (!files.ca && !files.cert && !files.key)) return undefined;
  const tls: EngineTls = { rejectUnauthorized: files.verify };
  for (const field of ['ca', 'cert', 'key'] as const) {
    const path = files[field];
    if (!path) continue;
    try {
      tls[field] = readFileSync(path);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw SdkErrors.engineTlsUnreadable({ flag: FLAG[field], path, reason }, { cause: error });
    }
  }
  return tls;
}
