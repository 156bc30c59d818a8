import { dockerfileInstructions, jsonArguments, splitInstruction, WORD_SPACE, type Instruction } from './dockerfile-lines.js';
import { expandWord, known, splitWords, UNKNOWN, type Expanded, type Lookup } from './dockerfile-words.js';

/*
 * The URLs the engine itself fetches for a Dockerfile: `ADD` sources that are `http://` or
 * `https://` URLs once expanded (moby's urlutil.IsURL, case as written; `ADD --checksum=...` too,
 * and the JSON form `ADD ["http://...", "/x"]`), expanded as the classic builder expands them:
 * with the stage's environment, which is the base image's ENV, the Dockerfile's `ENV`s, then the
 * build args the stage declares (`ARG`, its default, the build's `buildargs`, an `ARG` before the
 * first `FROM`) and the proxy variables, an `ENV` or the base image's ENV winning over an `ARG`.
 *
 * The base image's ENV is not known here: a variable no `ENV` of the Dockerfile sets, in a stage
 * that builds on an image (not `scratch`, not an earlier stage that builds on scratch), may be set
 * by it. A source that holds such a variable, or one the lexer would refuse, is unresolved when what
 * it could become may start with `http://` or `https://`; `ADD $DIR/file /x` after `ENV DIR=/src`
 * is no URL, nor is `/src/$ANY`. `ONBUILD ADD` is fetched by the builds on the image made here,
 * with their environment and escape character: its sources are read with every variable unknown,
 * under either escape character (`judgeTrigger`). Heredoc bodies are
 * read both as the parser reads them and as instructions, so no reading hides an instruction.
 */

export interface DockerfileFetches {
  /** The URLs the engine would fetch, in the Dockerfile's order, each once. */
  urls: string[];
  /** Sources that could make the engine fetch a URL this cannot know, as the Dockerfile writes them. */
  unresolved: string[];
}

/** Build args dockerd lets every stage use without an `ARG`. */
const PROXY_ARGS = new Set([
  'HTTP_PROXY',
  'http_proxy',
  'HTTPS_PROXY',
  'https_proxy',
  'FTP_PROXY',
  'ftp_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
]);

interface Stage {
  /** The `ENV`s of the Dockerfile, this stage's and those of the stage it builds on. */
  readonly env: Map<string, Expanded>;
  /** It builds on an image, whose ENV may set any variable. */
  readonly imageEnv: boolean;
  /** `ARG`s of this stage, with their defaults (undefined: none). */
  readonly args: Map<string, Expanded | undefined>;
  /** An `ENV` or `ARG` whose name is not known here, or that the parser refuses: any variable may be anything. */
  tainted: boolean;
}

function isUrl(text: string): boolean {
  return text.startsWith('http://') || text.startsWith('https://');
}

/** Whether what an unresolved expansion becomes may start with `http://` or `https://`. */
function mayBeUrl(prefix: string): boolean {
  return ['http://', 'https://'].some((scheme) => scheme.startsWith(prefix) || prefix.startsWith(scheme));
}

/** The arguments of `ADD` (`parseMaybeJSONToList`): the JSON form's strings, or whitespace-separated words. */
function addArguments(args: string): string[] {
  const json = jsonArguments(args);
  if (json) return json;
  return args === '' ? [] : args.split(WORD_SPACE);
}

/** `ENV a=b c=d` or the old `ENV a b c`: the pairs as written, or undefined when the parser refuses them. */
function envPairs(args: string, escape: string): Array<[string, string]> | undefined {
  const words = splitWords(args, escape);
  if (words.length === 0) return [];
  if (!words[0]!.includes('=')) {
    const match = WORD_SPACE.exec(args);
    return match ? [[args.slice(0, match.index), args.slice(match.index + match[0].length)]] : undefined;
  }
  if (!words.every((word) => word.includes('='))) return undefined;
  return words.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]);
}

/** `ARG a`, `ARG a=b`: names with their defaults as written. */
function argPairs(args: string, escape: string): Array<[string, string | undefined]> {
  return splitWords(args, escape).map((word) =>
    word.includes('=') ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, undefined],
  );
}

/** Adds the sources that are URLs once expanded, or may be, to `out`. */
function judgeSources(sources: readonly string[], escape: string, lookup: Lookup, out: DockerfileFetches): void {
  for (const source of sources) {
    const value = expandWord(source, escape, lookup);
    if (value.complete && isUrl(value.text)) {
      if (!out.urls.includes(value.text)) out.urls.push(value.text);
    } else if (!value.complete && mayBeUrl(value.text) && !out.unresolved.includes(source)) out.unresolved.push(source);
  }
}

/** The escape characters a later build's lexer may have: its own Dockerfile's, either one. */
const ESCAPES = ['\\', '`'];

/**
 * The `ADD`s of a build trigger (an `ONBUILD`'s instruction as written, continuations joined), as
 * the builds on the image run it (`dispatchTriggeredOnBuild`): parsed as a Dockerfile of its own,
 * with its own directives (the default escape character otherwise), its words expanded by the
 * later build's lexer, with that build's escape character and environment: both characters,
 * every variable unknown. An `ONBUILD` in it (which a trigger in a commit's body can hold) writes
 * a trigger for the builds after: read too.
 */
function judgeTrigger(trigger: string, out: DockerfileFetches): void {
  for (const heredocs of [true, false]) {
    const { escape, instructions } = dockerfileInstructions(trigger, { heredocs });
    for (const instruction of instructions) {
      const inner = instruction.keyword === 'onbuild' ? splitInstruction(instruction.args, escape) : instruction;
      if (inner.keyword !== 'add') continue;
      for (const lexer of ESCAPES) judgeSources(addArguments(inner.args).slice(0, -1), lexer, () => UNKNOWN, out);
    }
  }
}

/** The fetches of one reading of the Dockerfile's instructions. */
function readFetches(
  instructions: readonly Instruction[],
  escape: string,
  buildArgs: Readonly<Record<string, string>>,
  out: DockerfileFetches,
): void {
  const given = (name: string): Expanded | undefined => (Object.hasOwn(buildArgs, name) ? known(buildArgs[name]!) : undefined);
  const meta = new Map<string, Expanded | undefined>();
  let metaTainted = false;
  const metaValue = (name: string): Expanded | undefined => (metaTainted ? UNKNOWN : meta.get(name));
  const metaLookup: Lookup = (name) =>
    meta.has(name) || PROXY_ARGS.has(name) || metaTainted ? (given(name) ?? metaValue(name)) : undefined;
  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  const lookup: Lookup = (name) => {
    if (!stage || stage.tainted) return UNKNOWN;
    const env = stage.env.get(name);
    if (env) return env;
    if (stage.imageEnv) return UNKNOWN;
    if (!stage.args.has(name) && !PROXY_ARGS.has(name)) return undefined;
    return given(name) ?? stage.args.get(name) ?? metaValue(name);
  };
  const expand = (word: string, with_: Lookup) => expandWord(word, escape, with_);
  const judge = (sources: readonly string[], with_: Lookup) => judgeSources(sources, escape, with_, out);
  for (const instruction of instructions) {
    switch (instruction.keyword) {
      case 'from': {
        const [base = '', as, name] = instruction.args === '' ? [] : instruction.args.split(WORD_SPACE);
        const reference = expand(base, metaLookup);
        const earlier = reference.complete ? stages.get(reference.text.toLowerCase()) : undefined;
        const scratch = reference.complete && reference.text === 'scratch';
        stage = {
          env: new Map(earlier?.env ?? []),
          imageEnv: earlier ? earlier.imageEnv : !scratch,
          args: new Map(),
          tainted: earlier?.tainted ?? false,
        };
        if (as?.toLowerCase() === 'as' && name !== undefined) stages.set(name.toLowerCase(), stage);
        break;
      }
      case 'arg': {
        const pairs = argPairs(instruction.args, escape).map(([key, value]) => {
          const expandedKey = expand(key, stage ? lookup : metaLookup);
          return [expandedKey, value === undefined ? undefined : expand(value, stage ? lookup : metaLookup)] as const;
        });
        for (const [key, value] of pairs) {
          if (key.complete) (stage ? stage.args : meta).set(key.text, value);
          else if (stage) stage.tainted = true;
          else metaTainted = true;
        }
        break;
      }
      case 'env': {
        const pairs = envPairs(instruction.args, escape);
        if (!stage) break;
        const expanded = pairs?.map(([key, value]) => [expand(key, lookup), expand(value, lookup)] as const);
        if (!expanded || expanded.some(([key]) => !key.complete)) stage.tainted = true;
        for (const [key, value] of expanded ?? []) if (key.complete) stage.env.set(key.text, value);
        break;
      }
      case 'add':
        if (stage) judge(addArguments(instruction.args).slice(0, -1), lookup);
        break;
      case 'onbuild':
        judgeTrigger(instruction.args, out);
        break;
    }
  }
}

/**
 * Every URL a Dockerfile makes the engine fetch (`ADD`), and the sources that could be URLs it
 * cannot resolve here. `buildArgs` is the build's `buildargs` (a null value, which dockerd takes
 * for no value, left out).
 */
export function dockerfileFetches(dockerfile: string, buildArgs: Readonly<Record<string, string>>): DockerfileFetches {
  const out: DockerfileFetches = { urls: [], unresolved: [] };
  for (const heredocs of [true, false]) {
    const { escape, instructions } = dockerfileInstructions(dockerfile, { heredocs });
    readFetches(instructions, escape, buildArgs, out);
  }
  return out;
}

/**
 * What the builds on an image made by a commit or an import would fetch: the `ADD`s of its build
 * triggers. dockerd reads `changes` as one Dockerfile (their lines joined, moby's
 * `BuildFromConfig`), where only `ONBUILD` of the instructions it allows there makes a later build
 * fetch (`ENV`'s values reach a later build's `ADD` as a base image's ENV, which that build's own
 * reading leaves unknown). `triggers` are `OnBuild` entries the image gets as they are (a commit's
 * body, the committed container's config), each read as the builds on the image read it.
 */
export function changesFetches(changes: readonly string[], triggers: readonly string[] = []): DockerfileFetches {
  const out = dockerfileFetches(changes.join('\n'), {});
  for (const trigger of triggers) judgeTrigger(trigger, out);
  return out;
}
