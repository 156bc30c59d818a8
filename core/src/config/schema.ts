import * as z from 'zod/mini';
import type { SwarmConfigInput } from './input.js';
import { formatKeyPath } from './key-path.js';
import { CoreErrors } from '../errors.js';
import { closestName } from '../util/did-you-mean.js';
import { valueAt } from '../util/value-at.js';

const duration = z.union([z.string(), z.number()]);
const option = z.union([z.string(), z.number(), z.boolean()]);
const tls = z.strictObject({
  ca: z.optional(z.string()),
  cert: z.optional(z.string()),
  key: z.optional(z.string()),
  verify: z.optional(z.boolean()),
});

const webExtension = z.union([z.boolean(), z.record(z.string(), option)]);

const accessCall = z.strictObject({ timeout: z.optional(duration), failurePolicy: z.optional(z.enum(['fail', 'ignore'])) });
const accessEntry = z.union([
  z.string(),
  z.tuple([z.string(), z.record(z.string(), z.unknown())]),
  z.tuple([z.string(), z.record(z.string(), z.unknown()), accessCall]),
]);
const pluginEntry = z.union([
  z.string(),
  z.tuple([z.string(), z.strictObject({ timeout: z.optional(duration), isolate: z.optional(z.boolean()) })]),
]);

const configSchema = z.strictObject({
  plugins: z.optional(z.array(pluginEntry)),
  watchdog: z.optional(z.strictObject({ limit: z.optional(duration) })),
  cluster: z.optional(
    z.strictObject({
      driver: z.optional(z.string()),
      discovery: z.optional(z.string()),
      options: z.optional(z.record(z.string(), option)),
      discoveryOptions: z.optional(z.record(z.string(), z.string())),
      heartbeat: z.optional(duration),
      engineRefreshMinInterval: z.optional(duration),
      engineRefreshMaxInterval: z.optional(duration),
      engineFailureRetry: z.optional(z.number().check(z.int())),
    }),
  ),
  scheduler: z.optional(
    z.strictObject({
      filters: z.optional(z.array(z.string())),
      strategy: z.optional(z.string()),
      strategyOptions: z.optional(z.record(z.string(), option)),
    }),
  ),
  api: z.optional(
    z.strictObject({
      hosts: z.optional(z.array(z.string())),
      host: z.optional(z.union([z.string(), z.array(z.string())])),
      cors: z.optional(z.boolean()),
      shutdownTimeout: z.optional(duration),
      readyMinNodes: z.optional(z.number()),
    }),
  ),
  tls: z.optional(tls),
  replication: z.optional(
    z.strictObject({
      enabled: z.optional(z.boolean()),
      advertise: z.optional(z.string()),
      ttl: z.optional(duration),
    }),
  ),
  ui: z.optional(webExtension),
  web: z.optional(z.record(z.string(), webExtension)),
  logLevel: z.optional(z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])),
  access: z.optional(
    z.strictObject({
      authn: z.optional(z.array(accessEntry)),
      authz: z.optional(z.array(accessEntry)),
      admission: z.optional(z.array(accessEntry)),
      authorizationPlugins: z.optional(z.array(z.string())),
      tokenFile: z.optional(z.string()),
      managersGroup: z.optional(z.string()),
      audit: z.optional(
        z.strictObject({
          path: z.optional(z.string()),
          maxSize: z.optional(z.union([z.string(), z.number()])),
          maxBackups: z.optional(z.number().check(z.int())),
        }),
      ),
    }),
  ),
});

interface Issue {
  code: string;
  path: PropertyKey[];
  expected?: unknown;
  keys?: string[];
  values?: unknown[];
  errors?: Issue[][];
  message: string;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

interface SchemaNode {
  _zod: { def: { type: string; shape?: Record<string, SchemaNode>; innerType?: SchemaNode } };
}

/** The keys the schema knows at an object path (`['cluster']` → driver, discovery, ...). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let node = configSchema as unknown as SchemaNode;
  const unwrap = (candidate: SchemaNode): SchemaNode =>
    candidate._zod.def.type === 'optional' && candidate._zod.def.innerType ? unwrap(candidate._zod.def.innerType) : candidate;
  for (const key of path) {
    const next = unwrap(node)._zod.def.shape?.[String(key)];
    if (!next) return [];
    node = next;
  }
  return Object.keys(unwrap(node)._zod.def.shape ?? {});
}

function unknownKey(path: readonly PropertyKey[], key: string): string {
  const suggestion = closestName(key, knownKeysAt(path));
  return suggestion ? `unknown key (did you mean ${suggestion}?)` : 'unknown key';
}

function explainIssue(issue: Issue, input: unknown): Array<{ path: PropertyKey[]; text: string }> {
  const got = describe(valueAt(input, issue.path));
  switch (issue.code) {
    case 'unrecognized_keys':
      return (issue.keys ?? ['']).map((key) => ({ path: [...issue.path, key], text: unknownKey(issue.path, key) }));
    default:
      return [explainOne(issue, got)];
  }
}

function explainOne(issue: Issue, got: string): { path: PropertyKey[]; text: string } {
  switch (issue.code) {
    case 'invalid_type':
      return { path: issue.path, text: `expected ${String(issue.expected)}, got ${got}` };
    case 'invalid_union': {
      const expected = (issue.errors ?? []).map((branch) => String(branch[0]?.expected ?? '?'));
      return { path: issue.path, text: `expected ${expected.join(' or ')}, got ${got}` };
    }
    case 'invalid_value':
      return { path: issue.path, text: `expected one of ${(issue.values ?? []).map(String).join(', ')}` };
    default:
      return { path: issue.path, text: issue.message === 'Invalid input' ? `invalid ${got}` : issue.message };
  }
}

/**
 * Check the shape of a config object. Throws CONFIG_INVALID naming the key path of the first
 * problem (`cluster.heartbeat: expected string or number, got boolean`), prefixed by `source`.
 */
export function validateConfigShape(input: unknown, source: string): SwarmConfigInput {
  const result = configSchema.safeParse(input);
  if (result.success) return result.data as SwarmConfigInput;
  const issues = result.error.issues as unknown as Issue[];
  const lines = issues.flatMap((issue) =>
    explainIssue(issue, input).map(({ path, text }) => `${formatKeyPath(path) || '(root)'}: ${text}`),
  );
  throw CoreErrors.configShapeInvalid({ source, lines }, { details: { issues: lines } });
}
