import { requestBytes, tarOf } from './wire.js';
import type { AliceObject, BobObject, Spelling, World } from './world.js';

/**
 * A generated attack: a request template whose strings hold references (`«b:db:p12»` is bob-db's
 * 12-character ID prefix, `«a:app:name»` alice's own container), materialised twice: naming bob's
 * objects, and naming objects nobody holds. The two answers are compared: an answer may echo what
 * alice typed only as it would echo a name nobody holds.
 */

export const FAMILIES = [
  'container',
  'create',
  'exec',
  'image',
  'build',
  'network',
  'volume',
  'system',
  'swarm',
  'plugin',
  'other',
] as const;
export type Family = (typeof FAMILIES)[number];
export type Framing = 'length' | 'chunked' | 'upgrade' | 'smuggle' | 'pipeline';
export type PathForm = 'plain' | 'percent' | 'dotdot' | 'double-slash' | 'trailing-slash';

export interface Attack {
  readonly family: Family;
  /** The route as the catalogue names it (`POST /containers/{id}/kill`), for the counts. */
  readonly route: string;
  readonly method: string;
  readonly version: string;
  readonly path: string;
  readonly pathForm: PathForm;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly body?:
    { readonly type: 'json'; readonly text: string } | { readonly type: 'tar'; readonly file: string; readonly content: string };
  readonly contentType: 'json' | 'text' | 'none' | 'tar';
  readonly framing: Framing;
  /** Host escalations the query asks a build for: judged by whether the build ran. */
  readonly asks: readonly string[];
}

export type Variant = 'bob' | 'nobody';

export interface Materialised {
  readonly bytes: Buffer;
  /** What the bob variant typed for each reference, and what the nobody variant typed instead. */
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  /** The request as written (first request of a smuggling or pipelined write included). */
  readonly text: string;
}

const NOBODY_NAMES: Readonly<Record<BobObject, string>> = {
  db: 'nobody-db',
  stopped: 'nobody-stopped',
  compose: 'nobodyproj-db-1',
  exec: '',
  net: 'nobody-net',
  vol: 'nobody-vol',
  img: 'nobody-img:1',
};

const TOKEN = /«([abnitu])(?::([a-z0-9]+))?(?::([a-z0-9]+))?»/g;

interface Spelt {
  readonly text: string;
  readonly pairs: Array<readonly [string, string]>;
}

function spellBob(world: World, object: BobObject, spelling: Spelling, variant: Variant): string {
  const known = world.bob[object];
  const id = variant === 'bob' ? known.id : world.nobodyIds[object];
  const name = object === 'exec' ? id : variant === 'bob' ? known.name : NOBODY_NAMES[object];
  switch (spelling) {
    case 'name':
      return name;
    case 'id':
      return object === 'img' ? `sha256:${id}` : object === 'vol' ? name : id;
    case 'p12':
      return object === 'vol' ? name : id.slice(0, 12);
    case 'short':
      return object === 'vol' ? name : id.slice(0, world.short[object].length);
    case 'node':
      return object === 'exec' ? id : object === 'img' ? `docker.io/library/${name}` : `${known.node}/${name}`;
  }
}

/** Replaces the references in `template` for one variant; `encode` is applied to each value. */
function spell(world: World, template: string, variant: Variant, hook: string, encode: (value: string) => string): Spelt {
  const pairs: Array<readonly [string, string]> = [];
  const text = template.replace(TOKEN, (_whole, kind: string, object?: string, spelling?: string) => {
    switch (kind) {
      case 'b': {
        // a network every team shares, on the node of bob's object: the same in both variants
        if (spelling === 'bridge') return encode(`${world.bob[object as BobObject].node}/bridge`);
        // a name of alice's own, made on the node of bob's object
        if (spelling === 'ownnode') {
          pairs.push(['gen-b', 'gen-n']);
          return encode(`${world.bob[object as BobObject].node}/${variant === 'bob' ? 'gen-b' : 'gen-n'}`);
        }
        const value = spellBob(world, object as BobObject, spelling as Spelling, variant);
        const theirs = spellBob(world, object as BobObject, spelling as Spelling, 'bob');
        const nobodys = spellBob(world, object as BobObject, spelling as Spelling, 'nobody');
        pairs.push([theirs, nobodys]);
        // the parts of what was typed an answer may echo alone: an ID without `sha256:`, a name without its node or registry
        if (theirs.startsWith('sha256:')) pairs.push([theirs.slice(7), nobodys.slice(7)]);
        if (spelling === 'node') {
          const [ownName, otherName] = [
            spellBob(world, object as BobObject, 'name', 'bob'),
            spellBob(world, object as BobObject, 'name', 'nobody'),
          ];
          pairs.push([ownName, otherName]);
          if (object === 'img') pairs.push([ownName.split(':')[0]!, otherName.split(':')[0]!]);
        }
        return encode(value);
      }
      case 'a': {
        const known = world.alice[object as AliceObject];
        return encode(spelling === 'id' ? known.id : spelling === 'node' ? `${known.node}/${known.name}` : known.name);
      }
      case 'n':
        pairs.push(['gen-b', 'gen-n']);
        return encode(variant === 'bob' ? 'gen-b' : 'gen-n');
      case 'i':
        return encode(world.hostInterface);
      case 't':
        return encode(String(object === 'since' ? world.since : Math.floor(Date.now() / 1000)));
      default:
        return encode(`${hook}/${variant}`);
    }
  });
  return { text, pairs };
}

function pathIn(form: PathForm, world: World, path: string, variant: Variant, hook: string): Spelt {
  const percent = (value: string) => [...value].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
  const spelt = spell(world, path, variant, hook, form === 'percent' ? percent : (value) => value);
  switch (form) {
    case 'dotdot':
      return { ...spelt, text: spelt.text.replace(/^\/(\w+)\//, `/$1/${world.alice.app.name}/../`) };
    case 'double-slash':
      return { ...spelt, text: `/${spelt.text}` };
    case 'trailing-slash':
      return { ...spelt, text: `${spelt.text}/` };
    default:
      return spelt;
  }
}

const CONTENT_TYPES = { json: 'application/json', text: 'text/plain', tar: 'application/x-tar', none: '' } as const;

export function materialise(attack: Attack, world: World, variant: Variant, hook: string): Materialised {
  const pairs: Array<readonly [string, string]> = [];
  const path = pathIn(attack.pathForm, world, attack.path, variant, hook);
  pairs.push(...path.pairs);
  const query = attack.query.map(([key, value]) => {
    const spelt = spell(world, value, variant, hook, (text) => text);
    pairs.push(...spelt.pairs);
    return `${key}=${encodeURIComponent(spelt.text)}`;
  });
  let body: Buffer | undefined;
  if (attack.body?.type === 'json') {
    const spelt = spell(world, attack.body.text, variant, hook, (value) => value);
    pairs.push(...spelt.pairs);
    body = Buffer.from(spelt.text);
  } else if (attack.body?.type === 'tar') {
    body = tarOf(attack.body.file, attack.body.content);
  }
  const target = `${attack.version}${path.text}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const headers: Array<[string, string]> = [];
  if (body !== undefined && attack.contentType !== 'none') headers.push(['Content-Type', CONTENT_TYPES[attack.contentType]]);
  if (attack.framing === 'upgrade') headers.push(['Connection', 'Upgrade'], ['Upgrade', 'tcp']);
  const main = requestBytes(attack.method, target, headers, body, attack.framing === 'chunked' ? 'chunked' : 'length', true);
  let first: Buffer | undefined;
  if (attack.framing === 'smuggle') {
    // alice's own exec of a paused container, started with Upgrade: the engine refuses it without switching protocols
    first = requestBytes(
      'POST',
      `/v1.41/exec/${world.alice.pexec.id}/start`,
      [
        ['Content-Type', 'application/json'],
        ['Connection', 'Upgrade'],
        ['Upgrade', 'tcp'],
      ],
      Buffer.from('{"Detach":false,"Tty":false}'),
      'length',
      false,
    );
  } else if (attack.framing === 'pipeline') {
    first = requestBytes('GET', '/v1.41/_ping', [], undefined, 'length', false);
  }
  const bytes = first ? Buffer.concat([first, main]) : main;
  // a tar body's padding and binary header fields shown as one dot each run
  const printable = (buffer: Buffer) =>
    attack.body?.type === 'tar'
      ? [...buffer.toString('latin1')]
          .map((c) => (c === '\n' || c === '\r' || (c >= ' ' && c <= '~') ? c : '·'))
          .join('')
          .replace(/·+/g, '·')
      : buffer.toString('latin1');
  return { bytes, pairs, text: printable(bytes) };
}
