import { CONTAINER_CREATE } from './field-table.js';
import type { FieldRow, JudgedLevel, Treatment } from './field-treatment.js';
import type { RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

const RULE = 'allow-list';

/** The table's paths as a tree: named fields, the items of a list (`[]`), the values of a map (`*`). */
interface Node {
  row?: FieldRow;
  readonly children: Map<string, Node>;
  each?: Node;
  values?: Node;
}

const node = (): Node => ({ children: new Map() });

function treeOf(table: Readonly<Record<string, FieldRow>>): Node {
  const root = node();
  for (const [path, row] of Object.entries(table)) {
    if (path.startsWith('?')) continue;
    let at = root;
    for (const segment of path.split('.')) {
      if (segment === '*') {
        at = at.values ??= node();
        continue;
      }
      const list = segment.endsWith('[]');
      const name = list ? segment.slice(0, -2) : segment;
      let child = at.children.get(name);
      if (!child) at.children.set(name, (child = node()));
      at = list ? (child.each ??= node()) : child;
    }
    at.row = row;
  }
  return root;
}

const CREATE = treeOf(CONTAINER_CREATE);
const HOST_CONFIG = CREATE.children.get('HostConfig')!;

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The engine's "unset": a refused field may be sent with it (the docker CLI sends many so). */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return isObject(value) ? Object.keys(value).length > 0 : true;
}

function judgeLeaf(value: unknown, row: FieldRow, level: JudgedLevel, field: string): Violation | undefined {
  const treatment: Treatment = row[level];
  const why = row.why ?? 'not allowed';
  if (treatment.kind === 'refuse') return isSet(value) ? { rule: RULE, field, detail: `: ${why}` } : undefined;
  if (treatment.kind !== 'values' || value === undefined || value === null) return undefined;
  if (treatment.values.includes(value as string | number | boolean)) return undefined;
  const allowedValues = treatment.values.filter((allowedValue) => allowedValue !== '').join(', ');
  return { rule: RULE, field, detail: `: ${JSON.stringify(value)} is not ${allowedValues}; ${why}` };
}

/** Why a field the table does not have is refused, with what the engine would make of it. */
function unknownDetail(key: string, parent: Node, path: string): string {
  const folded = [...parent.children.keys()].find((known) => known.toLowerCase() === key.toLowerCase());
  if (folded !== undefined) return `: the engine reads it as ${path}${folded} (Go matches field names without case); send ${folded}`;
  if (parent === CREATE && HOST_CONFIG.children.has(key))
    return ': a HostConfig field at the top level (dockerd reads it there when HostConfig is absent); send it in HostConfig';
  return ': not a field of the Engine API (1.41 to 1.56) this policy knows';
}

function walkObject(value: Readonly<Record<string, unknown>>, at: Node, path: string, level: JudgedLevel): Violation | undefined {
  for (const [key, child] of Object.entries(value)) {
    const known = at.children.get(key);
    const field = `${path}${key}`;
    const found = known
      ? visit(child, known, field, level)
      : isSet(child)
        ? { rule: RULE, field, detail: unknownDetail(key, at, path) }
        : undefined;
    if (found) return found;
  }
  return undefined;
}

const malformed = (field: string, expected: string): Violation => ({ rule: 'malformed', field, detail: `: expected ${expected}` });

function visit(value: unknown, at: Node, field: string, level: JudgedLevel): Violation | undefined {
  if (at.each === undefined && at.values === undefined && at.children.size === 0)
    return at.row ? judgeLeaf(value, at.row, level, field) : undefined;
  if (value === undefined || value === null) return undefined;
  if (at.each) {
    if (!Array.isArray(value)) return at.row ? judgeLeaf(value, at.row, level, field) : malformed(field, 'a list');
    for (const [i, item] of value.entries()) {
      if (!isObject(item)) return malformed(`${field}[${i}]`, 'an object');
      const found = walkObject(item, at.each, `${field}[${i}].`, level);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return malformed(field, 'an object');
  if (at.values) {
    for (const [key, item] of Object.entries(value)) {
      if (item === null) continue;
      if (!isObject(item)) return malformed(`${field}[${JSON.stringify(key)}]`, 'an object');
      const found = walkObject(item, at.values, `${field}[${JSON.stringify(key)}].`, level);
      if (found) return found;
    }
    return undefined;
  }
  return walkObject(value, at, `${field}.`, level);
}

/**
 * A create body held to the field table: a field the table refuses, a value it does not list, or
 * a field it does not have (a newer engine's, a misspelt or re-cased one the engine would still
 * read) is refused, named. The fields the table leaves to a rule are that rule's.
 */
export function allowListRule(context: RuleContext): Violation | undefined {
  return createFieldsViolation(context.body, context.level);
}

/** A body of another action (a network create) held to its own table, as a create body to its. */
export function tableFieldsViolation(
  table: Readonly<Record<string, FieldRow>>,
): (body: Readonly<Record<string, unknown>>, level: JudgedLevel) => Violation | undefined {
  const tree = treeOf(table);
  return (body, level) => walkObject(body, tree, '', level);
}

/** The allow-list's verdict alone on a create body: its first field the table does not allow. */
export function createFieldsViolation(body: Readonly<Record<string, unknown>>, level: JudgedLevel): Violation | undefined {
  return walkObject(body, CREATE, '', level);
}
