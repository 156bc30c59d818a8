import { conflict, invalidArgument, notFound } from './errors.js';
import { now } from './clock.js';
import { EventHub } from './events.js';
import { generatedName, randomHexId, stableHexId } from './ids.js';
import type { EngineIdentity } from './identity.js';
import {
  asString,
  asStringArray,
  labelsOf,
  networkModeOf,
  type CreateBody,
  type HollowContainer,
  type HollowImage,
  type HollowNetwork,
} from './model.js';
import { PortAllocator } from './ports.js';

const VALID_NAME = /^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;
const NO_PORTS: readonly never[] = Object.freeze([]);

/** Signal names and numbers as `docker kill --signal` sends them. */
const SIGNALS: Record<string, number> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, USR1: 10, USR2: 12, TERM: 15 };

export function signalNumber(signal: string | null): number {
  if (signal === null || signal === '') return 9;
  if (/^\d+$/.test(signal)) return Number(signal);
  const number = SIGNALS[signal.toUpperCase().replace(/^SIG/, '')];
  if (number === undefined) throw invalidArgument(`Invalid signal: ${signal}`);
  return number;
}

export function defaultImage(name: string, seed: string): HollowImage {
  return {
    id: `sha256:${stableHexId(`${seed}/${name}`)}`,
    repoTags: [name],
    createdMs: Date.now(),
    size: 1982317,
    layer: `sha256:${stableHexId(`layer/${name}`)}`,
  };
}

/** The containers, images, networks and events of one hollow engine, and the operations on them. */
export class EngineState {
  readonly containers = new Map<string, HollowContainer>();
  readonly events = new EventHub();
  readonly images: HollowImage[];
  readonly networks: HollowNetwork[];
  private readonly byName = new Map<string, HollowContainer>();
  private readonly ports = new PortAllocator();
  private nextPid = 1000;
  private nextIpHost = 2;

  constructor(
    readonly identity: EngineIdentity,
    imageNames: readonly string[],
  ) {
    this.images = imageNames.map((name) => defaultImage(name, identity.name));
    const network = (name: string, driver: string, subnet?: string): HollowNetwork => ({
      id: stableHexId(`${identity.id}/network/${name}`),
      name,
      driver,
      createdMs: Date.now(),
      ...(subnet === undefined ? {} : { subnet, gateway: '172.17.0.1' }),
    });
    this.networks = [network('none', 'null'), network('host', 'host'), network('bridge', 'bridge', '172.17.0.0/16')];
  }

  container(ref: string): HollowContainer {
    const found = this.containers.get(ref) ?? this.byName.get(ref.replace(/^\//, '')) ?? this.byIdPrefix(ref);
    if (found === undefined) throw notFound(`No such container: ${ref}`);
    return found;
  }

  image(ref: string): HollowImage | undefined {
    const tagged = ref.includes(':') && !ref.startsWith('sha256:') ? ref : `${ref}:latest`;
    return this.images.find(
      (image) =>
        image.repoTags.includes(tagged) || image.repoTags.includes(ref) || image.id === ref || image.id.startsWith(`sha256:${ref}`),
    );
  }

  network(ref: string): HollowNetwork | undefined {
    return this.networks.find((network) => network.id === ref || network.name === ref || network.id.startsWith(ref));
  }

  create(body: CreateBody, requestedName: string | null): HollowContainer {
    const imageRef = asString(body['Image']) ?? '';
    if (requestedName !== null && requestedName !== '' && !VALID_NAME.test(requestedName)) {
      throw invalidArgument(`Invalid container name (${requestedName}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`);
    }
    const image = this.image(imageRef);
    if (image === undefined) throw notFound(`No such image: ${imageRef.includes(':') ? imageRef : `${imageRef}:latest`}`);
    if (!asStringArray(body['Cmd'])?.length && !asStringArray(body['Entrypoint'])?.length) throw invalidArgument('No command specified');
    const id = randomHexId();
    const name = requestedName ? requestedName.replace(/^\//, '') : generatedName((candidate) => this.byName.has(candidate));
    const holder = this.byName.get(name);
    if (holder !== undefined) {
      throw conflict(
        `Conflict. The container name "/${name}" is already in use by container "${holder.id}". You have to remove (or rename) that container to be able to reuse that name.`,
      );
    }
    const container = this.add(id, name, body, image, now().ms);
    this.emitContainer(container, 'create');
    return container;
  }

  /** Adds a container without events, as if it existed before the engine started (preloading). */
  add(id: string, name: string, body: CreateBody, image: HollowImage, createdMs: number): HollowContainer {
    const container: HollowContainer = {
      id,
      name,
      body,
      image,
      createdMs,
      state: 'created',
      startedMs: 0,
      finishedMs: 0,
      exitCode: 0,
      pid: 0,
      ipHost: 0,
      published: NO_PORTS,
    };
    this.containers.set(id, container);
    this.byName.set(name, container);
    return container;
  }

  /** False when it was already running (the engine answers 304). */
  start(ref: string): boolean {
    const container = this.container(ref);
    if (container.state === 'running') return false;
    container.published = this.ports.bind(container, this.identity.host);
    this.markRunning(container, now().ms);
    this.emitNetwork(container, 'connect');
    this.emitContainer(container, 'start');
    return true;
  }

  markRunning(container: HollowContainer, startedMs: number): void {
    container.state = 'running';
    container.startedMs = startedMs;
    container.finishedMs = 0;
    container.exitCode = 0;
    container.pid = this.nextPid++;
    container.ipHost = this.nextIpHost++;
  }

  /** The hollow process exits cleanly on SIGTERM. False when it was not running (304). */
  stop(ref: string): boolean {
    const container = this.container(ref);
    if (container.state !== 'running') return false;
    this.emitContainer(container, 'kill', { signal: '15' });
    this.exit(container, 0);
    this.emitContainer(container, 'stop');
    return true;
  }

  kill(ref: string, signal: string | null): void {
    const container = this.container(ref);
    const number = signalNumber(signal);
    if (container.state !== 'running') {
      throw conflict(`Cannot kill container: ${ref}: Container ${container.id} is not running`);
    }
    this.emitContainer(container, 'kill', { signal: String(number) });
    this.exit(container, 128 + number);
  }

  remove(ref: string, force: boolean): void {
    const container = this.container(ref);
    if (container.state === 'running') {
      if (!force) {
        throw conflict(
          `You cannot remove a running container ${container.id}. Stop the container before attempting removal or force remove`,
        );
      }
      this.emitContainer(container, 'kill', { signal: '9' });
      this.exit(container, 137);
    }
    this.containers.delete(container.id);
    this.byName.delete(container.name);
    this.emitContainer(container, 'destroy');
  }

  /** Adds an image as a pull from a registry would, with the engine's `pull` event. */
  pull(reference: string): HollowImage {
    const existing = this.image(reference);
    if (existing !== undefined) return existing;
    const image = defaultImage(reference, this.identity.name);
    this.images.push(image);
    const name = reference.slice(0, reference.lastIndexOf(':'));
    this.events.emit({ type: 'image', action: 'pull', actorId: reference, attributes: { name } });
    return image;
  }

  private exit(container: HollowContainer, exitCode: number): void {
    container.state = 'exited';
    container.exitCode = exitCode;
    container.finishedMs = now().ms;
    container.pid = 0;
    this.emitContainer(container, 'die', { exitCode: String(exitCode) });
    this.emitNetwork(container, 'disconnect');
    this.ports.release(container.published);
    container.published = NO_PORTS;
    container.ipHost = 0;
  }

  private byIdPrefix(prefix: string): HollowContainer | undefined {
    if (!/^[0-9a-f]+$/.test(prefix)) return undefined;
    let match: HollowContainer | undefined;
    for (const container of this.containers.values()) {
      if (!container.id.startsWith(prefix)) continue;
      if (match !== undefined) throw invalidArgument(`multiple IDs found with provided prefix: ${prefix}`);
      match = container;
    }
    return match;
  }

  private emitContainer(container: HollowContainer, action: string, extra: Record<string, string> = {}): void {
    const image = asString(container.body['Image']) ?? '';
    this.events.emit({
      type: 'container',
      action,
      actorId: container.id,
      from: image,
      attributes: { ...labelsOf(container.body), image, name: container.name, ...extra },
    });
  }

  private emitNetwork(container: HollowContainer, action: 'connect' | 'disconnect'): void {
    const mode = networkModeOf(container.body);
    const network = this.network(mode === 'default' ? 'bridge' : mode);
    if (network === undefined) return;
    this.events.emit({
      type: 'network',
      action,
      actorId: network.id,
      attributes: { container: container.id, name: network.name, type: network.driver },
    });
  }
}
