import type { WireContainer, WireNode } from '../../../src/wire.js';
import { byName, STATUS_TEXT } from '../format.js';

/**
 * Pixel sizes of a node column's parts. The map computes each column's height from them (to
 * place rows without measuring the DOM, so 1,000 nodes cost what the visible ones cost), and the
 * components give their parts exactly these heights.
 */
export const SIZES = {
  columnWidth: 252,
  gap: 12,
  padding: 10,
  title: 24,
  address: 18,
  error: 36,
  verdict: 26,
  labels: 26,
  bar: 30,
  summary: 22,
  card: 44,
  cardGap: 6,
  more: 34,
  groupHeader: 40,
  /** Cards shown before "Show all". */
  cardsShown: 8,
} as const;

/** Labels every engine has: left out of the chips (the details show them). */
export const STANDARD_LABELS = new Set(['storagedriver', 'kernelversion', 'operatingsystem', 'ostype', 'containerslots']);

export type HealthFilter = 'all' | 'healthy' | 'unhealthy';

export interface MapFilter {
  /** Words, all of which must match: `zone=a` a label, anything else part of a node's or container's name, address or image. */
  readonly text: string;
  readonly health: HealthFilter;
}

/** A node as the map shows it: all its containers, or only those the filter matched. */
export interface ShownNode {
  readonly node: WireNode;
  readonly containers: readonly WireContainer[];
  /** How many containers the node has (when only some are shown). */
  readonly total: number;
}

interface Word {
  readonly label?: { readonly key: string; readonly value: string | undefined };
  readonly text: string;
}

function parseWords(text: string): Word[] {
  return text
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => {
      const eq = word.indexOf('=');
      if (eq > 0) return { label: { key: word.slice(0, eq), value: word.slice(eq + 1) || undefined }, text: word };
      return { text: word };
    });
}

function labelMatches(node: WireNode, label: NonNullable<Word['label']>): boolean {
  for (const [key, value] of Object.entries(node.labels)) {
    if (key.toLowerCase() === label.key && (label.value === undefined || value.toLowerCase() === label.value)) return true;
  }
  return false;
}

function nodeMatches(node: WireNode, word: Word): boolean {
  if (word.label) return labelMatches(node, word.label);
  return node.name.toLowerCase().includes(word.text) || node.addr.includes(word.text);
}

function containerMatches(container: WireContainer, word: Word): boolean {
  return !word.label && (container.name.toLowerCase().includes(word.text) || container.image.toLowerCase().includes(word.text));
}

function healthMatches(node: WireNode, health: HealthFilter): boolean {
  if (health === 'all') return true;
  return health === 'healthy' ? node.status === 'healthy' : node.status !== 'healthy';
}

/**
 * The nodes the filter keeps. Every word must match the node (name, address, label) or, for
 * words that are not labels, one of its containers (name, image): then only matching containers
 * are shown.
 */
export function filterNodes(nodes: readonly WireNode[], filter: MapFilter): ShownNode[] {
  const words = parseWords(filter.text);
  const out: ShownNode[] = [];
  for (const node of nodes) {
    if (!healthMatches(node, filter.health)) continue;
    const containerWords = words.filter((word) => !nodeMatches(node, word));
    if (containerWords.some((word) => word.label)) continue;
    if (containerWords.length === 0) {
      out.push({ node, containers: node.containers, total: node.containers.length });
      continue;
    }
    const containers = node.containers.filter((container) => containerWords.every((word) => containerMatches(container, word)));
    if (containers.length > 0) out.push({ node, containers, total: node.containers.length });
  }
  return out;
}

/** `''` (no groups), `status`, or `label:<key>`. */
export type Grouping = string;

export interface Group {
  readonly title: string;
  readonly nodes: readonly ShownNode[];
}

export function groupNodes(shown: readonly ShownNode[], grouping: Grouping): Group[] {
  if (grouping === '') return [{ title: '', nodes: shown }];
  const groups = new Map<string, ShownNode[]>();
  const labelKey = grouping.startsWith('label:') ? grouping.slice('label:'.length) : undefined;
  for (const item of shown) {
    const title = labelKey
      ? item.node.labels[labelKey] !== undefined
        ? `${labelKey}=${item.node.labels[labelKey]}`
        : `no ${labelKey} label`
      : (STATUS_TEXT[item.node.status] ?? item.node.status);
    const list = groups.get(title) ?? [];
    list.push(item);
    groups.set(title, list);
  }
  return [...groups.entries()].sort(([a], [b]) => byName(a, b)).map(([title, nodes]) => ({ title, nodes }));
}

/** Label keys any node has (not the standard ones), for the "group by" choices. */
export function labelKeys(nodes: readonly WireNode[]): string[] {
  const keys = new Set<string>();
  for (const node of nodes) for (const key of Object.keys(node.labels)) if (!STANDARD_LABELS.has(key)) keys.add(key);
  return [...keys].sort(byName);
}

export function cardsShown(item: ShownNode, expanded: boolean): number {
  return expanded ? item.containers.length : Math.min(item.containers.length, SIZES.cardsShown);
}

/** The height of a node's column: fixed parts, then its cards. */
export function columnHeight(item: ShownNode, expanded: boolean, withVerdict: boolean): number {
  const cards = cardsShown(item, expanded);
  return (
    2 * SIZES.padding +
    SIZES.title +
    SIZES.address +
    (item.node.error ? SIZES.error : 0) +
    (withVerdict ? SIZES.verdict : 0) +
    SIZES.labels +
    2 * SIZES.bar +
    SIZES.summary +
    cards * (SIZES.card + SIZES.cardGap) +
    (item.containers.length > SIZES.cardsShown ? SIZES.more : 0)
  );
}

export type LayoutItem =
  | {
      readonly kind: 'group';
      readonly key: string;
      readonly top: number;
      readonly height: number;
      readonly title: string;
      readonly count: number;
    }
  | { readonly kind: 'row'; readonly key: string; readonly top: number; readonly height: number; readonly nodes: readonly ShownNode[] };

export interface MapLayout {
  readonly items: readonly LayoutItem[];
  readonly height: number;
}

/** Rows of `columns` node columns (each row as tall as its tallest column), under group headers. */
export function layoutMap(groups: readonly Group[], columns: number, expanded: ReadonlySet<string>, withVerdict: boolean): MapLayout {
  const items: LayoutItem[] = [];
  let top = 0;
  for (const group of groups) {
    if (group.title !== '') {
      items.push({ kind: 'group', key: `g:${group.title}`, top, height: SIZES.groupHeader, title: group.title, count: group.nodes.length });
      top += SIZES.groupHeader;
    }
    for (let start = 0; start < group.nodes.length; start += columns) {
      const nodes = group.nodes.slice(start, start + columns);
      const height = Math.max(...nodes.map((item) => columnHeight(item, expanded.has(item.node.key), withVerdict)));
      items.push({ kind: 'row', key: `r:${group.title}:${nodes[0]!.node.key}`, top, height, nodes });
      top += height + SIZES.gap;
    }
  }
  return { items, height: top };
}

/** Indexes [first, end) of the items that overlap the viewport widened by `overscan` pixels. */
export function visibleItems(items: readonly LayoutItem[], scrollTop: number, viewport: number, overscan: number): [number, number] {
  const from = scrollTop - overscan;
  const to = scrollTop + viewport + overscan;
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const item = items[middle]!;
    if (item.top + item.height < from) low = middle + 1;
    else high = middle;
  }
  let end = low;
  while (end < items.length && items[end]!.top <= to) end++;
  return [low, end];
}

export function columnsFor(width: number): number {
  return Math.max(1, Math.floor((width + SIZES.gap) / (SIZES.columnWidth + SIZES.gap)));
}
