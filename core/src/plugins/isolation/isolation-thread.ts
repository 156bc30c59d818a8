import { pathToFileURL } from 'node:url';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Tokens, type ExtensionKind, type Filter, type Node, type PluginManifest, type Provider, type Strategy } from '@swarm/plugin-sdk';
import { NodeColumns } from '@swarm/plugin-sdk/helpers';
import { silentLogger } from '../../logging/silent-logger.js';
import { createPluginContext } from '../plugin-context.js';
import { CoreErrors } from '../../errors.js';
import { fromWire } from './node-wire.js';
import { wireError } from './wire-error.js';
import type { FilterAnswer, IsolationAnswer, IsolationCall, IsolationData, NodeSync, RankAnswer } from './protocol.js';

// Runs one plugin's filters and strategies in a thread of their own: a hook that never returns
// holds only this thread, which the host ends.
const { entry, answered, strategyOptions } = workerData as IsolationData;
const port = (workerData as { port: MessagePort }).port;

const providers = new Map<string, Provider<unknown>>();
const built = new Map<string, unknown>();
const known = new Map<string, Node>();
const columns = new NodeColumns();

const resolver = {
  resolve(token: unknown): unknown {
    if (token === Tokens.StrategyOptions) return strategyOptions;
    if (token === Tokens.Logger) return silentLogger;
    throw CoreErrors.isolatedTokenUnavailable({ token: String(token) });
  },
};

function build<T>(kind: ExtensionKind, name: string): T {
  const key = `${kind}:${name}`;
  if (built.has(key)) return built.get(key) as T;
  const provider = providers.get(key) as Record<string, unknown> | undefined;
  if (!provider) throw CoreErrors.isolatedProviderMissing({ kind, name });
  let value: unknown;
  if ('useValue' in provider) value = provider['useValue'];
  else if ('useClass' in provider) value = new (provider['useClass'] as new () => unknown)();
  else value = (provider['useFactory'] as (container: typeof resolver) => unknown)(resolver);
  built.set(key, value);
  return value as T;
}

function nodesOf(sync: NodeSync): Node[] {
  for (const wire of sync.changed) known.set(wire.id, fromWire(wire));
  return sync.ids.map((id) => known.get(id)!);
}

function runFilter(call: Extract<IsolationCall, { op: 'filter' }>): FilterAnswer {
  const nodes = nodesOf(call.nodes);
  const table = columns.sync(nodes);
  const run = build<Filter>(Tokens.Filter, call.name).prepare(call.request, table);
  const answer = {
    skip: run === undefined,
    conditions: run?.conditions ?? [],
    refusedRows: [] as number[],
    reasons: [] as string[],
    resolvable: [] as boolean[],
  };
  if (run === undefined) return answer;
  if (typeof (run as { then?: unknown }).then === 'function' || typeof run.check !== 'function') return { ...answer, skip: false };
  const rows = run.rowsToCheck;
  const visit = rows === undefined ? nodes.map((_, row) => row) : Array.from(rows);
  for (const row of visit) {
    let verdict;
    try {
      verdict = run.check(nodes[row]!, row);
    } catch (error) {
      return { ...answer, usesSoft: run.usesSoft, refusalMessage: run.refusalMessage, thrown: { row, error: wireError(error) } };
    }
    if (verdict.pass) continue;
    answer.refusedRows.push(row);
    answer.reasons.push(verdict.reason);
    answer.resolvable.push(verdict.resolvable !== false);
  }
  return { ...answer, ...(run.usesSoft ? { usesSoft: true } : {}), ...(run.refusalMessage ? { refusalMessage: run.refusalMessage } : {}) };
}

function runRank(call: Extract<IsolationCall, { op: 'rank' }>): RankAnswer {
  const nodes = nodesOf(call.nodes);
  const table = NodeColumns.of(nodes);
  const ranked = build<Strategy>(Tokens.Strategy, call.name).rank(call.request, nodes, call.limit, table);
  const rowOf = new Map(nodes.map((node, row) => [node, row]));
  return { rows: ranked.map((entry) => rowOf.get(entry.node) ?? -1), scores: ranked.map((entry) => entry.score) };
}

function answer(message: IsolationAnswer): void {
  port.postMessage(message);
  Atomics.store(answered, 0, message.seq);
  Atomics.notify(answered, 0);
}

try {
  const module = (await import(pathToFileURL(entry).href)) as { default?: PluginManifest; plugin?: PluginManifest };
  const manifest = module.default ?? module.plugin!;
  manifest.register(createPluginContext((kind, name, provider) => providers.set(`${kind}:${name}`, provider as Provider<unknown>)));
} catch (error) {
  answer({ seq: -1, ok: false, error: wireError(error) });
  throw error;
}

port.on('message', (call: IsolationCall) => {
  try {
    answer({ seq: call.seq, ok: true, result: call.op === 'filter' ? runFilter(call) : runRank(call) });
  } catch (error) {
    answer({ seq: call.seq, ok: false, error: wireError(error) });
  }
});
answer({ seq: -1, ok: true, result: { rows: [], scores: [] } });
parentPort?.unref();
