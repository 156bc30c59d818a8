import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import {
  fail,
  PASS,
  type Filter,
  type FilterRun,
  type FilterVerdict,
  type Node,
  type PlacementRequest,
  type RankedNode,
  type Strategy,
} from '@swarm/plugin-sdk';
import type { PluginGuard } from '../plugin-guard.js';
import { CoreErrors } from '../../errors.js';
import { toWire } from './node-wire.js';
import { rebuild } from './wire-error.js';
import { waitForAnswer } from './wait-for-answer.js';
import type { FilterAnswer, IsolationAnswer, IsolationCall, IsolationData, NodeSync, RankAnswer } from './protocol.js';

/** What each node sent to the worker adds to a call's limit. */
const PER_NODE_SENT_MS = 1;

/** How long a worker may take to load its plugin, the first time it is asked. */
const START_LIMIT_MS = 10_000;

export interface IsolationOptions {
  /** The plugin's entry file, imported by the worker. */
  readonly entry: string;
  /** How long one hook may run before its worker is ended. */
  readonly limitMs: number;
  readonly guard: PluginGuard;
  readonly strategyOptions?: Readonly<Record<string, string | number | boolean>>;
}

type CallBody =
  Omit<Extract<IsolationCall, { op: 'filter' }>, 'seq' | 'nodes'> | Omit<Extract<IsolationCall, { op: 'rank' }>, 'seq' | 'nodes'>;

/**
 * One plugin's worker thread and the calls into it. The scheduler's contract is synchronous, so
 * a call waits on shared memory (Atomics.wait) for the worker's answer, up to the limit; a worker
 * that does not answer in time is ended (worker.terminate()), counted, and started afresh on the
 * next call. The nodes go over as data, each only when its snapshot changed.
 */
export class IsolatedPlugin {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private answered = new Int32Array(new SharedArrayBuffer(4));
  private seq = 0;
  private started = false;
  private sent = new Map<string, number>();
  /** Hooks that did not return in time, whose worker was ended. */
  hung = 0;

  constructor(private readonly options: IsolationOptions) {}

  private start(): void {
    const { port1, port2 } = new MessageChannel();
    this.answered = new Int32Array(new SharedArrayBuffer(4));
    const data: IsolationData & { port: MessagePort } = {
      entry: this.options.entry,
      answered: this.answered,
      strategyOptions: this.options.strategyOptions ?? {},
      port: port2,
    };
    this.worker = new Worker(new URL('./isolation-thread.js', import.meta.url), { workerData: data, transferList: [port2] });
    this.worker.unref();
    this.port = port1;
    this.seq = 0;
    this.started = false;
    this.sent.clear();
  }

  private end(): void {
    void this.worker?.terminate();
    this.port?.close();
    this.worker = undefined;
    this.port = undefined;
  }

  /** Waits until the worker posted answer `seq`, or `limitMs` passed. */
  private await(seq: number, limitMs: number): IsolationAnswer | undefined {
    const answer = waitForAnswer<IsolationAnswer>(this.port!, this.answered, seq, limitMs);
    return answer === 'late' ? undefined : answer;
  }

  private sync(nodes: readonly Node[]): NodeSync {
    const changed = [];
    for (const node of nodes) {
      const snapshot = node.snapshot();
      if (this.sent.get(node.id) === snapshot.version) continue;
      changed.push(toWire(node, snapshot));
      this.sent.set(node.id, snapshot.version);
    }
    return { ids: nodes.map((node) => node.id), changed };
  }

  call(kind: 'filter' | 'strategy', body: CallBody, nodes: readonly Node[], hook: string): FilterAnswer | RankAnswer {
    if (!this.worker) this.start();
    if (!this.started) {
      const ready = this.await(-1, START_LIMIT_MS);
      if (!ready?.ok) {
        this.end();
        const reason = ready ? ready.error.message : `no answer within ${START_LIMIT_MS / 1000}s`;
        throw CoreErrors.isolatedWorkerStart({ kind, name: body.name, plugin: this.options.guard.labelOf(kind, body.name), reason });
      }
      this.started = true;
    }
    const seq = ++this.seq;
    const sync = this.sync(nodes);
    this.port!.postMessage({ ...body, seq, nodes: sync } as IsolationCall);
    // Nodes the worker reads afresh (all of them on its first call) take it time of their own.
    const answer = this.await(seq, this.options.limitMs + sync.changed.length * PER_NODE_SENT_MS);
    if (!answer) {
      this.hung++;
      this.end();
      this.options.guard.observe(kind, body.name, this.options.limitMs / 1000, 'timeout');
      throw this.options.guard.timedOut(kind, body.name, this.options.limitMs, { hook });
    }
    if (!answer.ok) throw rebuild(answer.error);
    return answer.result;
  }

  close(): void {
    this.end();
  }
}

/** A filter whose `prepare` and `check`s run in the plugin's worker, as one call per placement pass. */
export function isolatedFilter(name: string, plugin: IsolatedPlugin): Filter {
  return {
    name,
    prepare(request: PlacementRequest, table): FilterRun | undefined {
      const answer = plugin.call('filter', { op: 'filter', name, request }, table.nodes, 'prepare()') as FilterAnswer;
      if (answer.skip) return undefined;
      const verdicts = new Map<number, FilterVerdict>();
      answer.refusedRows.forEach((row, k) => verdicts.set(row, fail(answer.reasons[k]!, answer.resolvable[k]!)));
      const thrown = answer.thrown;
      const rows = thrown ? [...answer.refusedRows, thrown.row] : answer.refusedRows;
      return {
        conditions: answer.conditions,
        ...(answer.usesSoft ? { usesSoft: true } : {}),
        ...(answer.refusalMessage ? { refusalMessage: answer.refusalMessage } : {}),
        rowsToCheck: rows,
        check(_node, row) {
          // The worker's check threw on this row: thrown here, where the host names the node.
          if (thrown && row === thrown.row) throw rebuild(thrown.error);
          return verdicts.get(row) ?? PASS;
        },
      };
    },
  };
}

/** A strategy whose `rank` runs in the plugin's worker. */
export function isolatedStrategy(name: string, plugin: IsolatedPlugin): Strategy {
  return {
    name,
    rank(request, nodes, limit): RankedNode[] {
      const answer = plugin.call('strategy', { op: 'rank', name, request, limit }, nodes, 'rank()') as RankAnswer;
      return answer.rows.flatMap((row, k) => (row >= 0 && row < nodes.length ? [{ node: nodes[row]!, score: answer.scores[k]! }] : []));
    },
  };
}
