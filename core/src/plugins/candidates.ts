/** Built-in packages a short name may mean, in the order they are tried. */
const BUILTIN_PREFIXES = ['', 'filter-', 'strategy-', 'driver-', 'discovery-'];

export function isPathSpecifier(spec: string): boolean {
  return spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/') || spec === '.' || spec === '..';
}

/**
 * The package names a plugin name may stand for, most specific first:
 * `constraint` → `@swarm/constraint`, `@swarm/filter-constraint`, ..., `swarm-plugin-constraint`;
 * `@acme/gpu` → `@acme/swarm-plugin-gpu`, `@acme/gpu`; a full name (`swarm-plugin-gpu`) → itself.
 */
export function candidatePackages(spec: string): string[] {
  if (spec.startsWith('@')) {
    const slash = spec.indexOf('/');
    const scope = spec.slice(0, slash);
    const bare = spec.slice(slash + 1);
    if (bare.startsWith('swarm-plugin-') || scope === '@swarm') return [spec];
    return [`${scope}/swarm-plugin-${bare}`, spec];
  }
  if (spec.startsWith('swarm-plugin-')) return [spec];
  return [...BUILTIN_PREFIXES.map((prefix) => `@swarm/${prefix}${spec}`), `swarm-plugin-${spec}`, spec];
}
