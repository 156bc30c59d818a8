// Label selectors (apimachinery labels.Parse: =, ==, !=, in, notin, exists, !exists, >, <) and
// field selectors (fields.ParseSelector: =, ==, != on the fields a resource offers).

export class SelectorError extends Error {}

type LabelOperator = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';
interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelSelector = (labels: Record<string, string> | undefined) => boolean;

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): void {
  const name = key.split('/').pop() ?? '';
  if (!LABEL_KEY.test(key) || name.length > 63) {
    throw new SelectorError(
      `unable to parse requirement: key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  }
}

function checkValue(value: string, index: number): void {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw new SelectorError(
      `unable to parse requirement: values[${index}][${value}]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  }
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += char;
  }
  terms.push(current);
  return terms;
}

function parseRequirement(raw: string): LabelRequirement {
  const term = raw.trim();
  if (!term) throw new SelectorError(`found '', expected: identifier`);
  let match = /^!\s*(\S+)$/.exec(term);
  if (match) return { key: match[1]!, operator: '!', values: [] };
  match = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (match) {
    const values = match[3]!.split(',').map((v) => v.trim());
    return { key: match[1]!, operator: match[2] as 'in' | 'notin', values };
  }
  match = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(term);
  if (match) {
    const [, key, op, value] = match;
    if (/[\s,=!()]/.test(value!)) throw new SelectorError(`found '${value}', expected: ',' or 'end of string'`);
    if (op === '>' || op === '<') {
      if (!/^-?\d+$/.test(value!))
        throw new SelectorError(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
      return { key: key!, operator: op === '>' ? 'gt' : 'lt', values: [value!] };
    }
    return { key: key!, operator: op === '!=' ? 'notin' : 'in', values: [value!] };
  }
  if (/^\S+$/.test(term) && !/[=!()<>]/.test(term)) return { key: term, operator: 'exists', values: [] };
  throw new SelectorError(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
}

export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (!text || !text.trim()) return () => true;
  const requirements = splitTerms(text).map(parseRequirement);
  for (const requirement of requirements) {
    checkKey(requirement.key);
    requirement.values.forEach(checkValue);
  }
  return (labels) => requirements.every((r) => matchesRequirement(r, labels ?? {}));
}

function matchesRequirement(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.operator) {
    case 'in':
      return has && requirement.values.includes(value!);
    case 'notin':
      return !has || !requirement.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const n = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

/** The structured form (metav1.LabelSelector) used by claims and volumes. */
export function matchesSelector(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> },
  labels: Record<string, string> | undefined,
): boolean {
  const actual = labels ?? {};
  const has = (key: string) => Object.prototype.hasOwnProperty.call(actual, key);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (actual[key] !== value) return false;
  return (selector.matchExpressions ?? []).every((expression) => {
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In':
        return has(expression.key) && values.includes(actual[expression.key]!);
      case 'NotIn':
        return !has(expression.key) || !values.includes(actual[expression.key]!);
      case 'Exists':
        return has(expression.key);
      default:
        return !has(expression.key);
    }
  });
}

export interface FieldRequirement {
  field: string;
  equals: boolean;
  value: string;
}

export type FieldSelector = (fields: Record<string, string>) => boolean;

/** Parses a field selector and checks every field against those the resource supports. */
export function parseFieldSelector(
  text: string | undefined,
  supported: ReadonlySet<string>,
): { matches: FieldSelector; requirements: FieldRequirement[] } {
  if (!text || !text.trim()) return { matches: () => true, requirements: [] };
  const requirements: FieldRequirement[] = [];
  for (const term of splitEscaped(text)) {
    const match = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!match) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = match[1]!.trim();
    if (!supported.has(field)) throw new SelectorError(`field label not supported: ${field}`);
    requirements.push({ field, equals: match[2] !== '!=', value: unescape(match[3]!) });
  }
  return {
    requirements,
    matches: (fields) => requirements.every((r) => (fields[r.field] === r.value) === r.equals),
  };
}

function splitEscaped(text: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\' && i + 1 < text.length) {
      current += char + text[++i];
      continue;
    }
    if (char === ',') {
      terms.push(current);
      current = '';
    } else current += char;
  }
  terms.push(current);
  return terms.filter((term) => term !== '');
}

const unescape = (value: string): string => value.replace(/\\(.)/g, '$1');
