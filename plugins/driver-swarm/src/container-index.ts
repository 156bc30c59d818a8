import type { EngineContainer } from './engine-container.js';
import type { EngineNode } from './engine-node.js';
import { MultiMap } from './multi-map.js';
import { RandomHex } from './random-hex.js';

const SHORT_ID = 12;

function stripSlash(name: string): string {
  return name.startsWith('/') ? name.slice(1) : name;
}

function unique(candidates: readonly EngineContainer[]): EngineContainer | undefined {
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** Cluster-wide container lookup with Swarm classic's rules, answered from hash maps. */
export class ContainerIndex {
  private readonly byId = new Map<string, EngineContainer>();
  private readonly byShortId = new MultiMap<string, EngineContainer>();
  private readonly bySwarmId = new MultiMap<string, EngineContainer>();
  private readonly byName = new MultiMap<string, EngineContainer>();
  private readonly random = new RandomHex();

  update(before: EngineContainer | undefined, after: EngineContainer | undefined): void {
    if (before) this.remove(before);
    if (after) this.add(after);
  }

  private add(container: EngineContainer): void {
    this.byId.set(container.id, container);
    this.byShortId.add(container.id.slice(0, SHORT_ID), container);
    if (container.swarmId) this.bySwarmId.add(container.swarmId, container);
    for (const name of container.names) this.byName.add(stripSlash(name), container);
  }

  private remove(container: EngineContainer): void {
    if (this.byId.get(container.id) === container) this.byId.delete(container.id);
    this.byShortId.delete(container.id.slice(0, SHORT_ID), container);
    if (container.swarmId) this.bySwarmId.delete(container.swarmId, container);
    for (const name of container.names) this.byName.delete(stripSlash(name), container);
  }

  /** Whether a container (pending ones included) already uses `/name`. */
  nameTaken(name: string): boolean {
    return this.byName.has(stripSlash(name));
  }

  swarmIdTaken(swarmId: string): boolean {
    return this.bySwarmId.has(swarmId);
  }

  /** A new `com.docker.swarm.id` (64 hex digits, as classic's) that no container carries. */
  newSwarmId(): string {
    for (;;) {
      const id = this.random.next(32);
      if (!this.swarmIdTaken(id)) return id;
    }
  }

  /** Every container (pending ones included) carrying this `com.docker.swarm.id`. */
  withSwarmId(swarmId: string): EngineContainer[] {
    return [...this.bySwarmId.get(swarmId)];
  }

  /**
   * Full or short ID, swarm ID, `name`, `/name`, `node/name` (node name or engine ID), then a
   * unique ID or swarm ID prefix. Several matches at a step find nothing.
   */
  find(idOrName: string): EngineContainer | undefined {
    if (idOrName === '') return undefined;
    const exact = this.byId.get(idOrName) ?? this.byShortId.first(idOrName);
    if (exact) return exact;
    const bySwarmId = this.bySwarmId.first(idOrName);
    if (bySwarmId) return bySwarmId;
    const named = this.byNameRules(idOrName);
    if (named.length > 0) return unique(named);
    return unique(this.byPrefix(idOrName));
  }

  private byNameRules(idOrName: string): EngineContainer[] {
    const candidates = new Set(this.byName.get(stripSlash(idOrName)));
    const slash = idOrName.indexOf('/');
    if (slash > 0) {
      const nodeRef = idOrName.slice(0, slash);
      for (const container of this.byName.get(idOrName.slice(slash + 1))) {
        if (onNode(container.node as EngineNode, nodeRef)) candidates.add(container);
      }
    }
    return [...candidates];
  }

  private byPrefix(prefix: string): EngineContainer[] {
    const candidates: EngineContainer[] = [];
    for (const container of this.byId.values()) {
      if (container.id.startsWith(prefix)) candidates.push(container);
    }
    for (const [swarmId, containers] of this.bySwarmId.entries()) {
      if (swarmId.startsWith(prefix)) candidates.push(...containers);
    }
    return [...new Set(candidates)];
  }
}

function onNode(node: EngineNode, reference: string): boolean {
  return node.name === reference || node.engineId === reference || node.id === reference;
}
