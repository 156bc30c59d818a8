import { readFileSync } from 'node:fs';

/**
 * What a manager's heap snapshot (`node --heapsnapshot-signal=SIGUSR2`, then `kill -USR2`) is made
 * of: self size by constructor, the most repeated strings, and everything reachable from one kind
 * of object (default `EngineContainer`, stopping at other such objects and at `node`), grouped by
 * the property path it hangs off, so per-container bytes can be read directly.
 *
 *   node --max-old-space-size=6000 test/bench/scale/dist/scale/heap-summary.js FILE [Constructor] [top]
 */

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, rootName = 'EngineContainer', topText = '40'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: heap-summary.js FILE.heapsnapshot [Constructor] [top]');
  process.exit(2);
}
const top = Number(topText);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = snap.snapshot;
const nodeFieldCount = meta.node_fields.length;
const edgeFieldCount = meta.edge_fields.length;
const [nodeTypes] = meta.node_types;
const [edgeTypes] = meta.edge_types;
const typeAt = meta.node_fields.indexOf('type');
const nameAt = meta.node_fields.indexOf('name');
const sizeAt = meta.node_fields.indexOf('self_size');
const edgeCountAt = meta.node_fields.indexOf('edge_count');
const nodeCount = snap.nodes.length / nodeFieldCount;

const firstEdge = new Uint32Array(nodeCount + 1);
for (let node = 0; node < nodeCount; node++)
  firstEdge[node + 1] = (firstEdge[node] ?? 0) + (snap.nodes[node * nodeFieldCount + edgeCountAt] ?? 0) * edgeFieldCount;

const typeOf = (node: number): string => nodeTypes[snap.nodes[node * nodeFieldCount + typeAt] ?? 0] ?? '?';
const nameOf = (node: number): string => snap.strings[snap.nodes[node * nodeFieldCount + nameAt] ?? 0] ?? '';
const sizeOf = (node: number): number => snap.nodes[node * nodeFieldCount + sizeAt] ?? 0;
const label = (node: number): string => {
  const type = typeOf(node);
  return type === 'object' || type === 'native' ? nameOf(node) : `(${type})`;
};

function* edgesOf(node: number): Generator<{ type: string; name: string; to: number }> {
  for (let at = firstEdge[node] ?? 0; at < (firstEdge[node + 1] ?? 0); at += edgeFieldCount) {
    const type = edgeTypes[snap.edges[at] ?? 0] ?? '?';
    const nameOrIndex = snap.edges[at + 1] ?? 0;
    const name = type === 'element' || type === 'hidden' ? `[${nameOrIndex}]` : (snap.strings[nameOrIndex] ?? '');
    yield { type, name, to: (snap.edges[at + 2] ?? 0) / nodeFieldCount };
  }
}

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const table = (rows: Map<string, { count: number; size: number }>, title: string, per?: number): void => {
  console.log(`\n## ${title}`);
  const sorted = [...rows].sort((a, b) => b[1].size - a[1].size).slice(0, top);
  for (const [key, { count, size }] of sorted) {
    console.log(
      `${mb(size).padStart(8)} MB ${String(count).padStart(9)}  ${per ? `${(size / per).toFixed(0).padStart(6)} B/each ` : ''}${key.slice(0, 140)}`,
    );
  }
};
const add = (rows: Map<string, { count: number; size: number }>, key: string, size: number): void => {
  const row = rows.get(key) ?? { count: 0, size: 0 };
  row.count++;
  row.size += size;
  rows.set(key, row);
};

let total = 0;
const byConstructor = new Map<string, { count: number; size: number }>();
const strings = new Map<string, { count: number; size: number }>();
const roots: number[] = [];
for (let node = 0; node < nodeCount; node++) {
  const size = sizeOf(node);
  total += size;
  const type = typeOf(node);
  add(byConstructor, label(node), size);
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
    add(strings, JSON.stringify(nameOf(node).slice(0, 100)), size);
  if (type === 'object' && nameOf(node) === rootName) roots.push(node);
}
console.log(`heap ${mb(total)} MB in ${nodeCount} nodes; ${roots.length} × ${rootName}`);
table(byConstructor, 'self size by constructor');
table(strings, 'strings by content (size of all copies)');

/** Everything a root reaches without crossing another root, `node`, maps' descriptors or code; each node counted once. */
const seen = new Uint8Array(nodeCount);
const byPath = new Map<string, { count: number; size: number }>();
const SKIP_EDGES = new Set(['weak', 'shortcut']);
const STOP_TYPES = new Set(['hidden', 'code', 'object shape', 'closure', 'synthetic', 'native']);
for (const root of roots) seen[root] = 1;
// Containers and nodes are counted under their own root only.
for (let node = 0; node < nodeCount; node++)
  if (typeOf(node) === 'object' && (nameOf(node) === 'EngineContainer' || nameOf(node) === 'EngineNode')) seen[node] = 1;
let reached = 0;
for (const root of roots) {
  add(byPath, rootName, sizeOf(root));
  reached += sizeOf(root);
  const queue: Array<[number, string]> = [[root, '']];
  while (queue.length > 0) {
    const [node, path] = queue.pop() ?? [0, ''];
    for (const edge of edgesOf(node)) {
      if (SKIP_EDGES.has(edge.type) || edge.name === 'map' || edge.name === '__proto__' || seen[edge.to]) continue;
      if (path === '' && edge.name === 'node') continue;
      const type = typeOf(edge.to);
      // an object's out-of-object fields and elements are its own, other hidden things are not
      if (STOP_TYPES.has(type) && !(edge.type === 'internal' && (edge.name === 'properties' || edge.name === 'elements'))) continue;
      seen[edge.to] = 1;
      const step = edge.type === 'element' ? '[]' : edge.type === 'internal' ? `<${edge.name}>` : `.${edge.name}`;
      const depth = path.split('.').length;
      const childPath = depth > Number(process.env.HEAP_DEPTH ?? 4) ? path : `${path}${step}`;
      add(byPath, `${childPath} ${label(edge.to)}`, sizeOf(edge.to));
      reached += sizeOf(edge.to);
      queue.push([edge.to, childPath]);
    }
  }
}
if (roots.length > 0) {
  console.log(`\nreachable only through ${rootName}s: ${mb(reached)} MB, ${(reached / roots.length).toFixed(0)} B per ${rootName}`);
  table(byPath, `reachable from ${rootName} by path (B/each = per ${rootName})`, roots.length);
}
