import * as k8s from '@kubernetes/client-node';
import { KubernetesErrors } from './errors.js';

const WATCH_SECONDS = 300;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;

function isAbort(error: unknown): boolean {
  return (error as { name?: string } | undefined)?.name === 'AbortError';
}

/**
 * Calls `onChange` whenever the named Lease changes (and once each time the watch starts), so a
 * candidate or follower acts on a released lease at once instead of at its next poll. Polling
 * stays the source of truth: a watch that fails (no `watch` on leases in the RBAC, an API server
 * away) is retried with a growing delay, and its first failure only is reported.
 */
export function watchLease(
  config: k8s.KubeConfig,
  namespace: string,
  name: string,
  onChange: () => void,
  onError: (error: Error) => void,
): { stop(): void } {
  let stopped = false;
  let abort: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = RETRY_MIN_MS;
  let reported = false;
  const again = (failed: boolean) => {
    if (stopped) return;
    timer = setTimeout(() => void once(), failed ? retryMs : 0);
    retryMs = failed ? Math.min(RETRY_MAX_MS, retryMs * 2) : RETRY_MIN_MS;
  };
  const failedWith = (error: unknown) => {
    if (!reported) onError(error instanceof Error ? error : KubernetesErrors.watchFailed({ message: String(error) }));
    reported = true;
    again(true);
  };
  const once = async (): Promise<void> => {
    try {
      abort = await new k8s.Watch(config).watch(
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
        { fieldSelector: `metadata.name=${name}`, timeoutSeconds: WATCH_SECONDS },
        (phase: string) => {
          if (phase !== 'ERROR' && phase !== 'BOOKMARK') onChange();
        },
        (error: unknown) => {
          if (stopped) return;
          if (error && !isAbort(error)) failedWith(error);
          else again(false);
        },
      );
      if (stopped) abort.abort();
    } catch (error) {
      if (!stopped) failedWith(error);
    }
  };
  void once();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      abort?.abort();
    },
  };
}
