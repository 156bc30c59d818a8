import { readFileSync } from 'node:fs';
import { ErrorCodes, SwarmError, type EngineEndpoint, type TlsFiles } from '@swarm/plugin-sdk';

export type AgentTls = NonNullable<EngineEndpoint['tls']>;

/**
 * As in Swarm classic, the manager's own `--tls*` material is also what it presents to the
 * agents' Docker engines. Read once at start-up; a missing file is a configuration error.
 */
export function agentTlsFrom(files: TlsFiles | undefined): AgentTls | undefined {
  if (!files) return undefined;
  const tls: AgentTls = { rejectUnauthorized: files.verify };
  const wanted = { ca: files.ca, cert: files.cert, key: files.key };
  for (const [field, path] of Object.entries(wanted) as Array<[keyof typeof wanted, string | undefined]>) {
    if (!path) continue;
    try {
      tls[field] = readFileSync(path);
    } catch (error) {
      throw new SwarmError(
        ErrorCodes.CONFIG_INVALID,
        `mesos: cannot read --tls${field === 'ca' ? 'cacert' : field} ${path}: ${(error as Error).message}`,
      );
    }
  }
  return tls;
}
