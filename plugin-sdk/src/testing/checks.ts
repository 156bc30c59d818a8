import { SdkErrors, asError } from '../errors.js';

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
    if (tester) tester.it(check.name, () => check.run());
    else {
      try {
        check.run();
      } catch (error) {
        throw checkFailed(check, error);
      }
    }
  }
}

/** `runChecks` for checks that wait: without a tester, they run one after another. */
export async function runAsyncChecks(checks: readonly AsyncCheck[], tester?: Tester): Promise<void> {
  for (const check of checks) {
    if (tester) tester.it(check.name, () => check.run());
    else await check.run().catch((error: unknown) => Promise.reject(checkFailed(check, error)));
  }
}

/** A failed check's error, naming the check. */
function checkFailed(check: { readonly name: string }, error: unknown) {
  return SdkErrors.conformanceFailed({ check: check.name, reason: asError(error).message }, { cause: error });
}
