import type { Answer } from './answers.js';

/**
 * The `GET /system/df` calls of one API front. An engine refuses a df while another runs ("a
 * disk usage operation is already running"), so identical requests share the call that is
 * running and the others start after the last one ends.
 */
export class DiskUsageCalls {
  /** The df running now, by path. */
  private readonly running = new Map<string, Promise<Answer[]>>();
  /** The end of the last df started. */
  private last: Promise<unknown> = Promise.resolve();

  /** The answers for `path`: the running call's, or `call`'s started after the last one. */
  share(path: string, call: () => Promise<Answer[]>): Promise<Answer[]> {
    let answers = this.running.get(path);
    if (!answers) {
      answers = this.last
        .catch(() => undefined)
        .then(call)
        .finally(() => this.running.delete(path));
      this.running.set(path, answers);
      this.last = answers;
    }
    return answers;
  }
}
