import { CoreErrors } from '../../errors.js';
import { keyValues } from '../key-values.js';

/**
 * The engine labels of `swarm sandbox`, node by node: every `--label k=v` on every node, and each
 * `--label-cycle k=a,b,c` giving the first node a, the second b, ... and round again, so that
 * `--label-cycle gpu=true,false` labels every other node.
 */
export function sandboxLabels(all: readonly string[], cycles: readonly string[]): (index: number) => readonly string[] {
  const common = Object.entries(keyValues('--label', all) ?? {}).map(([key, value]) => `${key}=${value}`);
  const cycled = Object.entries(keyValues('--label-cycle', cycles) ?? {}).map(([key, list]) => {
    if (key === '' || list === '')
      throw CoreErrors.cliFlagInvalid({ flag: '--label-cycle', reason: `expected key=a,b,... (got "${key}=${list}")` });
    return { key, values: list.split(',') };
  });
  return (index) => [...common, ...cycled.map(({ key, values }) => `${key}=${values[index % values.length]}`)];
}
