import type { Container, Node } from '@swarm/plugin-sdk';
import type { EngineClients } from '../forwarding/index.js';

const MAX_REMEMBERED = 10_000;
/** Asking every engine for an unknown exec ID: each has this long to answer. */
const LOOKUP_TIMEOUT_MS = 5_000;

interface ExecOwner {
  readonly nodeId: string;
  /** The container the exec runs in; access control judges an exec by it. */
  readonly containerId?: string;
}

/** Which node and container an exec instance lives in: remembered at create, else asked of every engine. */
export class ExecRegistry {
  private readonly owners = new Map<string, ExecOwner>();

  constructor(private readonly engines: EngineClients) {}

  remember(execId: string, container: Container): void {
    this.keep(execId, { nodeId: container.node.id, containerId: container.id });
  }

  async find(execId: string, nodes: readonly Node[]): Promise<Node | undefined> {
    const owner = await this.owner(execId, nodes);
    return owner && nodes.find((node) => node.id === owner.nodeId);
  }

  /** The ID of the container an exec runs in, if any engine knows the exec. */
  async container(execId: string, nodes: readonly Node[]): Promise<string | undefined> {
    return (await this.owner(execId, nodes))?.containerId;
  }

  private keep(execId: string, owner: ExecOwner): void {
    if (this.owners.size >= MAX_REMEMBERED) {
      const oldest = this.owners.keys().next().value;
      if (oldest !== undefined) this.owners.delete(oldest);
    }
    this.owners.set(execId, owner);
  }

  private async owner(execId: string, nodes: readonly Node[]): Promise<ExecOwner | undefined> {
    const known = this.owners.get(execId);
    if (known && nodes.some((node) => node.id === known.nodeId)) return known;
    const answers = await Promise.all(
      nodes.map(async (node): Promise<ExecOwner | undefined> => {
        const endpoint = node.endpoint();
        if (!endpoint || !node.isHealthy()) return undefined;
        try {
          const inspect = await this.engines
            .of(endpoint)
            .json<{ ContainerID?: unknown }>({ path: `/exec/${encodeURIComponent(execId)}/json`, timeoutMs: LOOKUP_TIMEOUT_MS });
          const containerId = typeof inspect?.ContainerID === 'string' ? inspect.ContainerID : undefined;
          return { nodeId: node.id, ...(containerId ? { containerId } : {}) };
        } catch {
          return undefined;
        }
      }),
    );
    const found = answers.find((owner): owner is ExecOwner => owner !== undefined);
    if (found) this.keep(execId, found);
    return found;
  }
}
