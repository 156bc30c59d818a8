const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A Kubernetes quantity ("2", "500m", "16Gi", "1e9") as a number; NaN when it is not one. */
export function parseQuantity(text: string | undefined): number {
  if (text === undefined) return Number.NaN;
  const match = /^([+-]?[0-9.]+(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  const suffix = match[2] ?? '';
  return value * (BINARY[suffix] ?? DECIMAL[suffix] ?? Number.NaN);
}

/** CPUs as a quantity: whole numbers as they are, fractions in millicores. */
export function cpuQuantity(cpus: number): string {
  return Number.isInteger(cpus) ? String(cpus) : `${Math.round(cpus * 1000)}m`;
}
