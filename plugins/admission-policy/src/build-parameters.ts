/**
 * Every query parameter dockerd reads on `POST /build` and `POST /images/create` (moby's
 * build_routes.go and image_routes.go, 20.10 to the newest; the swagger lists fewer: `isolation`,
 * `cgroupparent`, `ulimits`, `securityopt`, `cpusetmems`, `session` and `buildid` are read but not
 * documented), each with what baseline and restricted do with it. A unit test fails when the
 * swagger has a parameter this table does not classify.
 *
 * - `judged`: the parameter becomes a HostConfig field of the container every `RUN` step runs in,
 *   judged by the rule named, as the same field of a container is;
 * - `limit`: a HostConfig field of that container that every level allows a container too
 *   (limits, ulimits, `--add-host`): allowed;
 * - `fetched`: the engine fetches the URL it holds: refused unless under `allowedUrls`;
 * - `allowed`: it changes what the build makes or how, not what its steps reach on the host.
 */
export type ParameterTreatment =
  | { readonly kind: 'judged'; readonly field: string; readonly rule: string }
  | { readonly kind: 'limit'; readonly field: string }
  | { readonly kind: 'fetched' }
  | { readonly kind: 'allowed'; readonly why: string };

const judged = (field: string, rule: string): ParameterTreatment => ({ kind: 'judged', field, rule });
const limit = (field: string): ParameterTreatment => ({ kind: 'limit', field });
const allowed = (why: string): ParameterTreatment => ({ kind: 'allowed', why });

export const BUILD_PARAMETERS: Readonly<Record<string, ParameterTreatment>> = {
  networkmode: judged('HostConfig.NetworkMode', 'host-namespaces'),
  cgroupparent: judged('HostConfig.CgroupParent', 'cgroup-parent'),
  isolation: judged('HostConfig.Isolation', 'isolation'),
  // dockerd on Linux refuses any; judged as a container's, for an engine that would apply them
  securityopt: judged('HostConfig.SecurityOpt', 'security-opt'),
  remote: { kind: 'fetched' },
  memory: limit('HostConfig.Memory'),
  memswap: limit('HostConfig.MemorySwap'),
  cpushares: limit('HostConfig.CpuShares'),
  cpuperiod: limit('HostConfig.CpuPeriod'),
  cpuquota: limit('HostConfig.CpuQuota'),
  cpusetcpus: limit('HostConfig.CpusetCpus'),
  cpusetmems: limit('HostConfig.CpusetMems'),
  shmsize: limit('HostConfig.ShmSize'),
  ulimits: limit('HostConfig.Ulimits'),
  extrahosts: limit('HostConfig.ExtraHosts'),
  t: allowed("the image's names (the manager refuses a name another team holds)"),
  dockerfile: allowed('a path inside the context'),
  target: allowed('a stage of the Dockerfile'),
  buildargs: allowed("the steps' environment (and the manager's placement directives)"),
  labels: allowed("the image's labels (the manager writes the owner's)"),
  cachefrom: allowed('images whose layers may be reused'),
  q: allowed('quieter output'),
  nocache: allowed('no cache'),
  rm: allowed('removes the intermediate containers'),
  forcerm: allowed('removes the intermediate containers'),
  pull: allowed('pulls the base image'),
  squash: allowed('squashes the layers (experimental engines only)'),
  platform: allowed("the image's platform"),
  outputs: allowed("BuildKit's exporters, which write to the engine's image store or the client's session"),
  // BuildKit (2) reads `remote` as the legacy builder does, and runs only `host` and `none` networks
  version: allowed('the builder (1 legacy, 2 BuildKit)'),
  session: allowed("BuildKit's session, which the manager does not serve"),
  buildid: allowed('a name to cancel the build by'),
};

export const IMPORT_PARAMETERS: Readonly<Record<string, ParameterTreatment>> = {
  fromSrc: { kind: 'fetched' },
  // with a value, the request is a pull (`image.pull`), which fetches from registries the engine trusts
  fromImage: allowed('makes the request a pull'),
  repo: allowed("the image's name"),
  tag: allowed("the image's tag"),
  message: allowed("the history's comment"),
  changes: allowed("Dockerfile instructions applied to the image's config, not run"),
  platform: allowed("the image's platform"),
};

const BY_FIELD = new Map(
  Object.entries(BUILD_PARAMETERS).flatMap(([parameter, treatment]) =>
    treatment.kind === 'judged' || treatment.kind === 'limit' ? [[treatment.field, parameter] as const] : [],
  ),
);

/** A refusal's field as the build sent it: `HostConfig.NetworkMode=host` is `networkmode=host`. */
export function asBuildParameter(field: string): string {
  const match = /^(HostConfig\.[A-Za-z]+)(.*)$/.exec(field);
  const parameter = match ? BY_FIELD.get(match[1]!) : undefined;
  return parameter === undefined ? field : `${parameter}${match![2]}`;
}
