import type { PlacementRequest } from '@swarm/plugin-sdk';
import type { WireNode } from './node-wire.js';

/** What the worker is given when it starts. */
export interface IsolationData {
  readonly entry: string;
  /** Slot 0: the number of the last answer posted (the host waits on it). */
  readonly answered: Int32Array;
  readonly strategyOptions: Readonly<Record<string, string | number | boolean>>;
}

/** The nodes of one call: their ids in order, and the wire data of those the worker has not seen at this version. */
export interface NodeSync {
  readonly ids: readonly string[];
  readonly changed: readonly WireNode[];
}

export type IsolationCall =
  | { readonly seq: number; readonly op: 'filter'; readonly name: string; readonly request: PlacementRequest; readonly nodes: NodeSync }
  | {
      readonly seq: number;
      readonly op: 'rank';
      readonly name: string;
      readonly request: PlacementRequest;
      readonly nodes: NodeSync;
      readonly limit: number | undefined;
    };

/** A filter's run, computed over every row in the worker: the rows it refused, with their verdicts. */
export interface FilterAnswer {
  readonly skip: boolean;
  readonly conditions: readonly string[];
  readonly usesSoft?: boolean;
  readonly refusalMessage?: string;
  readonly refusedRows: readonly number[];
  readonly reasons: readonly string[];
  readonly resolvable: readonly boolean[];
  /** A check that threw: the row, and the error. */
  readonly thrown?: { readonly row: number; readonly error: WireError };
}

/** A strategy's ranking: rows of the nodes given, best first, with their scores. */
export interface RankAnswer {
  readonly rows: readonly number[];
  readonly scores: readonly number[];
}

export interface WireError {
  readonly message: string;
  readonly stack?: string;
  /** A SwarmError the plugin meant: its code, status and details. */
  readonly swarm?: { readonly code: string; readonly httpStatus: number; readonly details?: Readonly<Record<string, unknown>> };
}

export type IsolationAnswer =
  | { readonly seq: number; readonly ok: true; readonly result: FilterAnswer | RankAnswer }
  | { readonly seq: number; readonly ok: false; readonly error: WireError };
