import { dockerfileInstructions, WORD_SPACE } from './dockerfile-lines.js';

/*
 * The images a Dockerfile builds on, read as the classic builder reads it (dockerfile-lines.ts):
 * `FROM [--platform=..] image [AS name]` and `COPY --from=image`. A reference that is an earlier
 * stage's name or index, or `scratch`, names no image; one with a variable in it (`FROM $BASE`)
 * names one this cannot know.
 */

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
  // both readings of heredoc bodies (dockerfile-lines.ts), each with its own stages
  for (const heredocs of [true, false]) {
    stages.length = 0;
    for (const { keyword, flags, args } of dockerfileInstructions(dockerfile, { heredocs }).instructions) {
      if (keyword === 'from') {
        const rest = args === '' ? [] : args.split(WORD_SPACE);
        if (rest[0] !== undefined) consider(rest[0]);
        stages.push(rest[1]?.toUpperCase() === 'AS' && rest[2] !== undefined ? rest[2].toLowerCase() : `\0${stages.length}`);
      } else if (keyword === 'copy') {
        for (const flag of flags) if (/^--from=/i.test(flag)) consider(flag.slice('--from='.length));
      }
    }
  }
  return { images: [...images], variable };
}
