/*
 * The images a Dockerfile builds on, read as the classic builder reads it: parser directives at the
 * top (`# escape=`), comments, lines continued with the escape character, `FROM [--platform=..] image
 * [AS name]` and `COPY --from=image`. A reference that is an earlier stage's name or index, or
 * `scratch`, names no image; one with a variable in it (`FROM $BASE`) names one this cannot know.
 */

const DIRECTIVE = /^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$/;

/** The Dockerfile's instructions, one logical line each, comments and continuations resolved. */
function logicalLines(dockerfile: string): string[] {
  const lines = dockerfile.replace(/^\uFEFF/, '').split(/\r?\n/);
  let escape = '\\';
  let index = 0;
  // Parser directives: comment lines at the very top, until any other line.
  for (; index < lines.length; index++) {
    const match = DIRECTIVE.exec(lines[index]!.trim());
    if (!match) break;
    if (match[1]!.toLowerCase() === 'escape') escape = match[2]!;
  }
  const logical: string[] = [];
  let current: string | undefined;
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed.startsWith('#') || (current !== undefined && trimmed === '')) continue;
    const continued = line.trimEnd().endsWith(escape);
    const part = continued ? line.trimEnd().slice(0, -escape.length) : line;
    current = current === undefined ? part : current + part;
    if (!continued) {
      if (current.trim() !== '') logical.push(current.trim());
      current = undefined;
    }
  }
  if (current !== undefined && current.trim() !== '') logical.push(current.trim());
  return logical;
}

/** What a Dockerfile builds on: the images it names, and whether a reference is left to a variable. */
export interface DockerfileBases {
  readonly images: readonly string[];
  /** A reference holds a `$`: which image it is depends on ARGs, so it is not known here. */
  readonly variable: boolean;
}

/** Every image a Dockerfile names as a base (`FROM`) or a `COPY --from` source. */
export function dockerfileBases(dockerfile: string): DockerfileBases {
  const stages: string[] = [];
  const images = new Set<string>();
  let variable = false;
  const consider = (reference: string) => {
    const lower = reference.toLowerCase();
    if (reference.includes('$')) variable = true;
    else if (lower !== 'scratch' && !stages.includes(lower) && !/^\d+$/.test(reference)) images.add(reference);
  };
  for (const line of logicalLines(dockerfile)) {
    const [keyword = '', ...words] = line.split(/\s+/);
    const instruction = keyword.toUpperCase();
    if (instruction === 'FROM') {
      const rest = words.filter((word) => !word.startsWith('--'));
      if (rest[0] !== undefined) consider(rest[0]);
      stages.push(rest[1]?.toUpperCase() === 'AS' && rest[2] !== undefined ? rest[2].toLowerCase() : `\0${stages.length}`);
    } else if (instruction === 'COPY') {
      for (const word of words) if (/^--from=/i.test(word)) consider(word.slice('--from='.length));
    }
  }
  return { images: [...images], variable };
}
