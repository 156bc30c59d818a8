/** What a scaffolded plugin is made of: file path → contents. */
export type PluginFiles = Readonly<Record<string, string>>;

/** `gpu-count` + `Filter` → `GpuCountFilter`. */
export const className = (name: string, suffix: string): string =>
  `${name.replace(/(^|[-_.])([a-z0-9])/gi, (_match, _separator: string, letter: string) => letter.toUpperCase())}${suffix}`;
