import type { AdmissionRequest } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { CoreErrors } from '../errors.js';

/**
 * How dockerd reads a query parameter of POST /build into the HostConfig of the container every
 * `RUN` step runs in (moby's newImageBuildOptions and hostConfigFromOptions):
 * - `text`: the first value as it is (Go's `FormValue`);
 * - `number`: the first value as Go's `ParseInt`, and 0 when it does not parse (`Int64ValueOrZero`);
 * - `size`: the first value as `ParseInt`, and a refused build when it does not parse;
 * - `list`: every value, in order (`r.Form[name]`);
 * - `json`: the first value as JSON (`ulimits`, a list of `{Name, Soft, Hard}`).
 */
type Reading = 'text' | 'number' | 'size' | 'list' | 'json';

const BUILD_HOST_FIELDS: ReadonlyArray<readonly [parameter: string, field: string, reading: Reading]> = [
  ['networkmode', 'NetworkMode', 'text'],
  ['cgroupparent', 'CgroupParent', 'text'],
  ['isolation', 'Isolation', 'text'],
  ['cpusetcpus', 'CpusetCpus', 'text'],
  ['cpusetmems', 'CpusetMems', 'text'],
  ['memory', 'Memory', 'number'],
  ['memswap', 'MemorySwap', 'number'],
  ['cpushares', 'CpuShares', 'number'],
  ['cpuperiod', 'CpuPeriod', 'number'],
  ['cpuquota', 'CpuQuota', 'number'],
  ['shmsize', 'ShmSize', 'size'],
  ['extrahosts', 'ExtraHosts', 'list'],
  // Refused by dockerd on Linux; judged all the same, as a Windows engine would apply it.
  ['securityopt', 'SecurityOpt', 'list'],
  ['ulimits', 'Ulimits', 'json'],
];

/** `remote` values that name no URL: the body is the context, or BuildKit's session brings it. */
const NO_REMOTE_URL = new Set(['', 'client-session']);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(value, 10, 64)`: undefined when it would fail. */
function parseInt64(value: string): number | undefined {
  if (!/^[+-]?\d+$/.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed < INT64_MIN || parsed > INT64_MAX ? undefined : Number(parsed);
}

function readField(query: URLSearchParams, parameter: string, reading: Reading): unknown {
  if (reading === 'list') {
    const values = query.getAll(parameter);
    return values.length === 0 ? undefined : values;
  }
  const value = query.get(parameter) ?? '';
  if (value === '') return undefined;
  switch (reading) {
    case 'text':
      return value;
    case 'number':
      return parseInt64(value) ?? 0;
    case 'size': {
      const size = parseInt64(value);
      if (size === undefined) throw CoreErrors.invalidParameter({ name: parameter, reason: `${JSON.stringify(value)} is not an integer` });
      return size;
    }
    default:
      try {
        const parsed: unknown = JSON.parse(value);
        if (parsed !== null && !Array.isArray(parsed)) throw new TypeError('expected a list of ulimits');
        return parsed ?? undefined;
      } catch (error) {
        throw CoreErrors.invalidParameter({ name: parameter, reason: (error as Error).message });
      }
  }
}

export interface BuildQuestion {
  readonly config: ContainerConfig;
  readonly source?: NonNullable<AdmissionRequest['source']>;
}

/** A build as admission judges it: the RUN steps' container, and the URL the engine would fetch for it. */
export function readBuildQuery(query: URLSearchParams): BuildQuestion {
  const host: Record<string, unknown> = {};
  for (const [parameter, field, reading] of BUILD_HOST_FIELDS) {
    const value = readField(query, parameter, reading);
    if (value !== undefined) host[field] = value;
  }
  const config: ContainerConfig = { Image: '', HostConfig: host };
  const remote = query.get('remote') ?? '';
  return NO_REMOTE_URL.has(remote) ? { config } : { config, source: { parameter: 'remote', url: remote } };
}

function writeField(query: URLSearchParams, parameter: string, reading: Reading, value: unknown): void {
  query.delete(parameter);
  if (value === undefined || value === null || value === '' || value === 0) return;
  if (reading === 'list' && Array.isArray(value)) for (const item of value) query.append(parameter, String(item));
  else query.set(parameter, reading === 'json' ? JSON.stringify(value) : String(value));
}

/**
 * The query the engine gets once an admission controller amended the build's config: each field it
 * changed goes back into its parameter, so the engine runs what was admitted.
 */
export function amendBuildQuery(query: URLSearchParams, asked: ContainerConfig, admitted: ContainerConfig): URLSearchParams {
  if (admitted === asked) return query;
  const amended = new URLSearchParams(query);
  const before = (asked.HostConfig ?? {}) as Record<string, unknown>;
  const after = (admitted.HostConfig ?? {}) as Record<string, unknown>;
  for (const [parameter, field, reading] of BUILD_HOST_FIELDS) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) writeField(amended, parameter, reading, after[field]);
  }
  return amended;
}

/**
 * The URL dockerd fetches for `POST /images/create?fromSrc=`: none for `-` (the body is the
 * archive); `http://` is put in front of a value without a scheme (moby's ImportImage).
 */
export function importSource(fromSrc: string): BuildQuestion['source'] {
  if (fromSrc === '-') return undefined;
  return { parameter: 'fromSrc', url: fromSrc.includes('://') ? fromSrc : `http://${fromSrc}` };
}
