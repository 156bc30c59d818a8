import type { Container, Image, Logger, Network, Volume } from '@swarm/plugin-sdk';
import type { DockerEvent } from '@swarm/plugin-sdk/docker';
import { MesosAgent } from './agent.js';
import type { EngineTls } from '@swarm/plugin-sdk/helpers';
import { findByIdOrName } from './engine-objects.js';
import type { Offer } from './protocol.js';

export interface AgentDirectoryDeps {
  readonly tls: EngineTls | undefined;
  readonly onEvent: (agent: MesosAgent, event: DockerEvent) => void;
  readonly logger: Logger;
}

/** Every agent seen in an offer, and the cluster-wide lookups over their engines. */
export class AgentDirectory {
  private readonly tls: EngineTls | undefined;
  private readonly onEvent: (agent: MesosAgent, event: DockerEvent) => void;
  private readonly logger: Logger;

  private readonly agents = new Map<string, MesosAgent>();

  constructor({ tls, onEvent, logger }: AgentDirectoryDeps) {
    this.tls = tls;
    this.onEvent = onEvent;
    this.logger = logger;
  }

  /** The agent behind an offer; a new one starts reading its engine and its event stream at once. */
  fromOffer(offer: Offer): MesosAgent {
    const known = this.agents.get(offer.agent_id.value);
    if (known) return known;
    const agent = new MesosAgent({ offer, tls: this.tls, onEvent: this.onEvent, logger: this.logger });
    this.agents.set(agent.id, agent);
    void agent.refresh();
    agent.events.start();
    return agent;
  }

  /** Close every agent's event stream (the manager is stopping). */
  stopEvents(): void {
    for (const agent of this.agents.values()) agent.events.stop();
  }

  get(id: string): MesosAgent | undefined {
    return this.agents.get(id);
  }

  all(): MesosAgent[] {
    return [...this.agents.values()];
  }

  async refreshAll(): Promise<void> {
    await Promise.all(this.all().map((agent) => agent.refresh()));
  }

  containers(): Container[] {
    return this.all().flatMap((agent) => agent.containers());
  }

  /** ID, name, or `node/name`. */
  container(idOrName: string): Container | undefined {
    const slash = idOrName.indexOf('/', 1);
    if (slash > 0) {
      const agent = this.all().find((candidate) => candidate.name === idOrName.slice(0, slash));
      return agent?.container(idOrName.slice(slash + 1));
    }
    return findByIdOrName(this.containers(), idOrName);
  }

  images(): Image[] {
    return this.all().flatMap((agent) => agent.images());
  }

  image(idOrName: string): Image | undefined {
    for (const agent of this.agents.values()) {
      const image = agent.image(idOrName);
      if (image) return image;
    }
    return undefined;
  }

  volumes(): Volume[] {
    return this.all().flatMap((agent) => agent.volumes());
  }

  volume(name: string): Volume | undefined {
    return this.volumes().find((volume) => volume.name === name);
  }

  networks(): Network[] {
    return this.all().flatMap((agent) => agent.networks());
  }

  network(idOrName: string): Network | undefined {
    return findByIdOrName(this.networks(), idOrName);
  }
}
