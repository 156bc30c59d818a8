/** One named check of a test kit suite. */
export interface Check {
  readonly name: string;
  run(): void;
}

/** The part of a test runner the kit needs (vitest's or jest's `it`/`test`). */
export interface Tester {
  it(name: string, body: () => void): void;
}

/**
 * With a tester, register one test per check (ESLint RuleTester style); without one, run them
 * all now and throw the first failure, naming the check.
 */
export function runChecks(checks: readonly Check[], tester?: Tester): void {
  for (const check of checks) {
    if (tester) {
      tester.it(check.name, () => check.run());
      continue;
    }
    try {
      check.run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${check.name}: ${message}`, { cause: error });
    }
  }
}
