/**
 * The HostConfig dockerd takes from a container create body, as its decoder leaves it.
 *
 * dockerd up to 26.1 (moby's runconfig.ContainerConfigWrapper, every API version it serves)
 * embeds a second HostConfig in the body's top level for clients of API 1.18 and older: every
 * HostConfig field (`Binds`, `Privileged`, `VolumesFrom`, `Memory`, ...) may also be written
 * beside `Image`, and a top-level `Cpuset` too. Its getHostConfig then decides:
 * - no `HostConfig` (absent or `null`): the top-level fields are the HostConfig, whole;
 * - both: `HostConfig` wins, and only a top-level Memory, MemorySwap, CpuShares, CpusetCpus or
 *   VolumeDriver fills the same field where `HostConfig` leaves it zero; the rest is ignored;
 * - then a top-level `Cpuset` fills an empty CpusetCpus, when there is a HostConfig at all.
 * dockerd 27.0 dropped that form (moby 2954b05b03): its decoder ignores the top-level fields.
 *
 * Swarm sends every engine the body this gives, with the fields inside `HostConfig`, so a 20.10
 * engine and a 27 one run the same container, the one swarm judged.
 */

/** The top-level fields that fill a HostConfig's zero fields when the body has both. */
const MERGED = ['Memory', 'MemorySwap', 'CpuShares', 'CpusetCpus', 'VolumeDriver'] as const;

const isZero = (value: unknown): boolean => value === undefined || value === 0 || value === '';

export function hostConfigAsDockerdReadsIt(
  body: Record<string, unknown>,
  topLevel: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const { Cpuset: cpuset, HostConfig: inner, ...rest } = body;
  let host = inner as Record<string, unknown> | undefined;
  if (host === undefined) host = topLevel;
  else if (topLevel !== undefined) {
    host = { ...host };
    for (const field of MERGED) if (!isZero(topLevel[field]) && isZero(host[field])) host[field] = topLevel[field];
  }
  if (host !== undefined && !isZero(cpuset) && isZero(host.CpusetCpus)) host = { ...host, CpusetCpus: cpuset };
  return host === undefined ? rest : { ...rest, HostConfig: host };
}
