import type { Node } from '@swarm/plugin-sdk';
import { presentNode } from './present.js';
import type { Sees } from './viewer.js';

/**
 * The browsers of one scoped identity (see `identityKey`), and their columns: a node's JSON with
 * only the containers they see, built once per change of the node whatever the number of their
 * browsers. Viewers who see everything never get one: they share the live stream's frames.
 */
export class Audience<C> {
  readonly clients = new Set<C>();
  /** Each node's filtered column, with the node's change count it was built at. */
  private readonly columns = new Map<Node, { version: number; json: string }>();

  /**
   * `sees` is the first browser's view; later browsers of the identity get the same answers (the
   * authorizers' visibility depends on the caller alone), so their snapshot reuses the columns.
   */
  constructor(readonly sees: Sees) {}

  /** The node's column as they see it; `version` changes whenever the node does. */
  column(node: Node, key: string, version: number): string {
    const cached = this.columns.get(node);
    if (cached?.version === version) return cached.json;
    const json = JSON.stringify(presentNode(node, key, this.sees));
    this.columns.set(node, { version, json });
    return json;
  }

  /** The node left the cluster. */
  forget(node: Node): void {
    this.columns.delete(node);
  }
}
