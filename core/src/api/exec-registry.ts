import type { Node } from '@swarm/plugin-sdk';
import type { EngineClients } from '../forwarding/index.js';

const MAX_REMEMBERED = 10_000;
/** Asking every engine for an unknown exec ID: each has this long to answer. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** Which node an exec instance lives on: remembered at create, else asked of every engine. */
export class ExecRegistry {
  private readonly owners = new Map<string, string>();

  constructor(private readonly engines: EngineClients) {}

  remember(execId: string, node: Node): void {
    if (this.owners.size >= MAX_REMEMBERED) {
      const oldest = this.owners.keys().next().value;
      if (oldest !== undefined) this.owners.delete(oldest);
    }
    this.owners.set(execId, node.id);
  }

  async find(execId: string, nodes: readonly Node[]): Promise<Node | undefined> {
    const known = this.owners.get(execId);
    const owner = known === undefined ? undefined : nodes.find((node) => node.id === known);
    if (owner) return owner;
    const answers = await Promise.all(
      nodes.map(async (node) => {
        const endpoint = node.endpoint();
        if (!endpoint || !node.isHealthy()) return undefined;
        try {
          await this.engines.of(endpoint).json({ path: `/exec/${encodeURIComponent(execId)}/json`, timeoutMs: LOOKUP_TIMEOUT_MS });
          return node;
        } catch {
          return undefined;
        }
      }),
    );
    const found = answers.find((node): node is Node => node !== undefined);
    if (found) this.remember(execId, found);
    return found;
  }
}
