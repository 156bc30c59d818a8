import { readFileSync } from 'node:fs';
import { Tokens, type ExtensionKind } from '@swarm/plugin-sdk';
import { builtinPackageNames } from '../plugins/builtins.js';

/**
 * The image each optional built-in is in. core lists some built-ins as optional dependencies
 * because they are heavy and most managers never load them; the lean image leaves them out
 * (npm install --omit=optional) and a second image carries them.
 */
const IMAGES: Readonly<Record<string, string>> = { '@swarm/driver-kubernetes': 'swarm-kubernetes' };

const PREFIXES: Partial<Record<ExtensionKind, string>> = {
  [Tokens.ClusterDriver]: 'driver',
  [Tokens.Filter]: 'filter',
  [Tokens.Strategy]: 'strategy',
  [Tokens.DiscoveryBackend]: 'discovery',
};

let optional: readonly string[] | undefined;
function optionalDependencies(): readonly string[] {
  optional ??= Object.keys(
    (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { optionalDependencies?: Record<string, string> })
      .optionalDependencies ?? {},
  );
  return optional;
}

export interface MissingBuiltin {
  /** The package that would provide it, `@swarm/driver-kubernetes`. */
  readonly packageName: string;
  /** The image that holds it, `swarm-kubernetes`. */
  readonly image?: string;
}

/**
 * The optional built-in package that provides `name` of `kind`, when it is not among the
 * `installed` built-ins (by default those next to this core).
 */
export function missingOptionalBuiltin(
  kind: ExtensionKind,
  name: string,
  installed: () => readonly string[] = builtinPackageNames,
): MissingBuiltin | undefined {
  const prefix = PREFIXES[kind];
  if (prefix === undefined) return undefined;
  const packageName = `@swarm/${prefix}-${name}`;
  if (!optionalDependencies().includes(packageName) || installed().includes(packageName)) return undefined;
  const image = IMAGES[packageName];
  return image === undefined ? { packageName } : { packageName, image };
}
