/** What a scaffolded plugin is made of: file path → contents. */
export type PluginFiles = Readonly<Record<string, string>>;

/** `gpu-count` + `Filter` → `GpuCountFilter`. */
export const className = (name: string, suffix: string): string =>
  `${name.replace(/(^|[-_.])([a-z0-9])/gi, (_match, _separator: string, letter: string) => letter.toUpperCase())}${suffix}`;

/**
 * `src/<name>-errors.ts` of an access plugin: its error catalogue, one coded entry for mistakes in
 * its options (`authz "readonly": option readOnly must be ...`), as the SDK asks of every package.
 */
export function optionErrorsFile(kind: 'authz' | 'admission', name: string): PluginFiles {
  return {
    [`src/${name}-errors.ts`]: `import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error this plugin raises, with a stable code: here, mistakes in its options. */
export const ${className(name, 'Errors')} = {
  option: defineError('${name}.option', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { option: string; problem: string }) => \`${kind} "${name}": option \${p.option} \${p.problem}\`,
  }),
} as const;
`,
  };
}
