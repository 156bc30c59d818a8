import { humanDuration, rfc3339Nano } from './clock.js';
import {
  asObject,
  asString,
  asStringArray,
  hostConfigOf,
  labelsOf,
  networkModeOf,
  type HollowContainer,
  type HollowNetwork,
  type Json,
  type JsonObject,
} from './model.js';
import { effectiveHostConfig } from './host-config.js';
import { CONTAINER_CONFIG_DEFAULTS } from './templates.js';

const DATA_ROOT = '/var/lib/docker';

const ipOf = (container: HollowContainer): string =>
  container.ipHost === 0 ? '' : `172.17.${container.ipHost >> 8}.${container.ipHost & 255}`;
const macOf = (container: HollowContainer): string =>
  container.ipHost === 0
    ? ''
    : `02:42:ac:11:${((container.ipHost >> 8) & 255).toString(16).padStart(2, '0')}:${(container.ipHost & 255).toString(16).padStart(2, '0')}`;
const endpointOf = (container: HollowContainer): string =>
  container.ipHost === 0 ? '' : container.id.slice(16) + container.id.slice(0, 16);

/** The argv the engine shows: entrypoint then cmd. */
function argvOf(container: HollowContainer): string[] {
  return [...(asStringArray(container.body['Entrypoint']) ?? []), ...(asStringArray(container.body['Cmd']) ?? [])];
}

/** dockerd's `Command` column quotes arguments that contain spaces: `sh -c 'trap ...'`. */
const commandLine = (argv: readonly string[]): string => argv.map((arg) => (/\s/.test(arg) ? `'${arg}'` : arg)).join(' ');

function status(container: HollowContainer, nowMs: number): string {
  if (container.state === 'running') return `Up ${humanDuration(nowMs - container.startedMs)}`;
  if (container.state === 'exited') return `Exited (${container.exitCode}) ${humanDuration(nowMs - container.finishedMs)} ago`;
  return 'Created';
}

function exposedPorts(container: HollowContainer): string[] {
  const keys = new Set(Object.keys(asObject(container.body['ExposedPorts']) ?? {}));
  for (const key of Object.keys(asObject(hostConfigOf(container.body)['PortBindings']) ?? {})) keys.add(key);
  return [...keys];
}

function summaryPorts(container: HollowContainer): Json[] {
  if (container.state !== 'running') return [];
  const ports: Json[] = container.published.map((port) => ({
    IP: port.hostIp,
    PrivatePort: port.privatePort,
    PublicPort: port.hostPort,
    Type: port.proto,
  }));
  for (const key of exposedPorts(container)) {
    const [privatePort = '0', proto = 'tcp'] = key.split('/');
    if (!container.published.some((port) => port.privatePort === Number(privatePort) && port.proto === proto))
      ports.push({ PrivatePort: Number(privatePort), Type: proto });
  }
  return ports;
}

function endpoint(container: HollowContainer, network: HollowNetwork): JsonObject {
  const running = container.ipHost !== 0 && network.driver === 'bridge';
  return {
    IPAMConfig: null,
    Links: null,
    Aliases: null,
    NetworkID: network.id,
    EndpointID: running ? endpointOf(container) : '',
    Gateway: running ? (network.gateway ?? '') : '',
    IPAddress: running ? ipOf(container) : '',
    IPPrefixLen: running ? 16 : 0,
    IPv6Gateway: '',
    GlobalIPv6Address: '',
    GlobalIPv6PrefixLen: 0,
    MacAddress: running ? macOf(container) : '',
    DriverOpts: null,
  };
}

function attachedNetworks(container: HollowContainer, networks: readonly HollowNetwork[]): JsonObject {
  const mode = networkModeOf(container.body);
  const network = networks.find((candidate) => candidate.name === (mode === 'default' ? 'bridge' : mode));
  return network === undefined ? {} : { [network.name]: endpoint(container, network) };
}

export function containerSummary(
  container: HollowContainer,
  networks: readonly HollowNetwork[],
  withSize: boolean,
  nowMs: number,
): JsonObject {
  return {
    Id: container.id,
    Names: [`/${container.name}`],
    Image: asString(container.body['Image']) ?? '',
    ImageID: container.image.id,
    Command: commandLine(argvOf(container)),
    Created: Math.floor(container.createdMs / 1000),
    Ports: summaryPorts(container),
    ...(withSize ? { SizeRootFs: container.image.size } : {}),
    Labels: labelsOf(container.body),
    State: container.state,
    Status: status(container, nowMs),
    HostConfig: { NetworkMode: networkModeOf(container.body) },
    NetworkSettings: { Networks: attachedNetworks(container, networks) },
    Mounts: [],
  };
}

function inspectPorts(container: HollowContainer): JsonObject {
  if (container.state !== 'running') return {};
  const ports: JsonObject = {};
  for (const key of exposedPorts(container)) ports[key] = null;
  for (const port of container.published) {
    const key = `${port.privatePort}/${port.proto}`;
    const list = Array.isArray(ports[key]) ? (ports[key] as Json[]) : [];
    list.push({ HostIp: port.hostIp, HostPort: String(port.hostPort) });
    ports[key] = list;
  }
  return ports;
}

function inspectConfig(container: HollowContainer): JsonObject {
  const body = container.body;
  const exposed: JsonObject = {};
  for (const key of exposedPorts(container)) exposed[key] = {};
  const config: JsonObject = { ...CONTAINER_CONFIG_DEFAULTS };
  for (const key of Object.keys(CONTAINER_CONFIG_DEFAULTS)) if (body[key] !== undefined) config[key] = body[key] as Json;
  config['Hostname'] = asString(body['Hostname']) || container.id.slice(0, 12);
  if (Object.keys(exposed).length > 0) config['ExposedPorts'] = exposed;
  const env = asStringArray(body['Env']);
  config['Env'] = env?.length ? env : null;
  config['Labels'] = labelsOf(body);
  if (Object.keys(asObject(config['Volumes']) ?? {}).length === 0) config['Volumes'] = null;
  return config;
}

export function containerInspect(container: HollowContainer, networks: readonly HollowNetwork[], withSize: boolean): JsonObject {
  const argv = argvOf(container);
  const folder = `${DATA_ROOT}/containers/${container.id}`;
  const running = container.state === 'running';
  const networksJson = attachedNetworks(container, networks);
  const bridge = asObject(networksJson['bridge']);
  return {
    Id: container.id,
    Created: rfc3339Nano(container.createdMs),
    Path: argv[0] ?? '',
    Args: argv.slice(1),
    State: {
      Status: container.state,
      Running: running,
      Paused: false,
      Restarting: false,
      OOMKilled: false,
      Dead: false,
      Pid: container.pid,
      ExitCode: container.exitCode,
      Error: '',
      StartedAt: rfc3339Nano(container.startedMs),
      FinishedAt: rfc3339Nano(container.finishedMs),
    },
    Image: container.image.id,
    ResolvConfPath: `${folder}/resolv.conf`,
    HostnamePath: `${folder}/hostname`,
    HostsPath: `${folder}/hosts`,
    LogPath: `${folder}/${container.id}-json.log`,
    Name: `/${container.name}`,
    RestartCount: 0,
    Driver: 'vfs',
    Platform: 'linux',
    MountLabel: '',
    ProcessLabel: '',
    AppArmorProfile: '',
    ExecIDs: null,
    HostConfig: effectiveHostConfig(container.body),
    GraphDriver: { Data: null, Name: 'vfs' },
    ...(withSize ? { SizeRw: 0, SizeRootFs: container.image.size } : {}),
    Mounts: [],
    Config: inspectConfig(container),
    NetworkSettings: {
      Bridge: '',
      SandboxID: running ? container.id.slice(32) + container.id.slice(0, 32) : '',
      HairpinMode: false,
      LinkLocalIPv6Address: '',
      LinkLocalIPv6PrefixLen: 0,
      Ports: inspectPorts(container),
      SandboxKey: running ? `/var/run/docker/netns/${container.id.slice(0, 12)}` : '',
      SecondaryIPAddresses: null,
      SecondaryIPv6Addresses: null,
      EndpointID: asString(bridge?.['EndpointID']) ?? '',
      Gateway: asString(bridge?.['Gateway']) ?? '',
      GlobalIPv6Address: '',
      GlobalIPv6PrefixLen: 0,
      IPAddress: asString(bridge?.['IPAddress']) ?? '',
      IPPrefixLen: bridge?.['IPPrefixLen'] ?? 0,
      IPv6Gateway: '',
      MacAddress: asString(bridge?.['MacAddress']) ?? '',
      Networks: networksJson,
    },
  };
}
