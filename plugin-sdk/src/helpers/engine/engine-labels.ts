/** The part of an engine's `GET /info` its node labels come from. */
export interface EngineInfoLabels {
  readonly Driver?: string;
  readonly KernelVersion?: string;
  readonly OperatingSystem?: string;
  readonly OSType?: string;
  readonly Labels?: readonly string[] | null;
}

/**
 * A node's labels from its engine's info, as Swarm classic builds them: the standard ones
 * (`storagedriver`, `kernelversion`, `operatingsystem`, `ostype`, when the engine reports them),
 * then the engine's `key=value` labels, which cannot override a standard one. A label named `node`
 * is left out (`constraint:node==` means the node's name), and so is one without `=`.
 */
export function engineLabels(info: EngineInfoLabels): Record<string, string> {
  const labels: Record<string, string> = {};
  if (info.Driver) labels['storagedriver'] = info.Driver;
  if (info.KernelVersion) labels['kernelversion'] = info.KernelVersion;
  if (info.OperatingSystem) labels['operatingsystem'] = info.OperatingSystem;
  if (info.OSType) labels['ostype'] = info.OSType;
  for (const label of info.Labels ?? []) {
    const split = label.indexOf('=');
    if (split <= 0) continue;
    const key = label.slice(0, split);
    if (key === 'node' || key in labels) continue;
    labels[key] = label.slice(split + 1);
  }
  return labels;
}
