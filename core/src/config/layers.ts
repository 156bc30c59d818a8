import type { SwarmConfigInput } from './input.js';

/** Where a layer of configuration came from: decides how errors point at a value. */
export type ConfigOrigin = 'defaults' | 'file' | 'object' | 'flags';

export interface ConfigLayer {
  readonly origin: Exclude<ConfigOrigin, 'defaults'>;
  readonly input: SwarmConfigInput;
  /** The config file path, for `file` layers. */
  readonly source?: string;
}

export interface Picked<T> {
  readonly value: T;
  readonly origin: ConfigOrigin;
}

/** The value of the last layer (highest precedence) that sets it. */
export function pick<T>(layers: readonly ConfigLayer[], read: (input: SwarmConfigInput) => T | undefined): Picked<T> | undefined {
  for (let index = layers.length - 1; index >= 0; index--) {
    const layer = layers[index]!;
    const value = read(layer.input);
    if (value !== undefined) return { value, origin: layer.origin };
  }
  return undefined;
}
