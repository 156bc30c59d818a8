import { SdkErrors } from '../errors.js';

/** One named check of a test kit suite. */
export interface Check {
  readonly name: string;
  run(): void;
}

/** A check that waits for the plugin (drivers and discovery backends do I/O). */
export interface AsyncCheck {
  readonly name: string;
  run(): Promise<void>;
}

/** The part of a test runner the kit needs (vitest's or jest's `it`/`test`). */
export interface Tester {
  it(name: string, body: () => void | Promise<void>): void;
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
      throw SdkErrors.conformanceFailed({ check: check.name, reason: message }, { cause: error });
    }
  }
}

/** `runChecks` for checks that wait: without a tester, they run one after another. */
export async function runAsyncChecks(checks: readonly AsyncCheck[], tester?: Tester): Promise<void> {
  for (const check of checks) {
    if (tester) {
      tester.it(check.name, () => check.run());
      continue;
    }
    try {
      await check.run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw SdkErrors.conformanceFailed({ check: check.name, reason: message }, { cause: error });
    }
  }
}
