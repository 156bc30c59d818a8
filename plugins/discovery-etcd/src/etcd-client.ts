import { Etcd3, type IOptions } from 'etcd3';
import type { KvDiscoveryTarget } from '@swarm/plugin-sdk/helpers';
import { EtcdErrors } from './errors.js';

/** Bound on every single store call, so an unreachable etcd turns into an error instead of a hang. */
export const CALL_TIMEOUT_MS = 5000;

export function createEtcdClient(target: KvDiscoveryTarget): Etcd3 {
  const scheme = target.tls === undefined ? 'http' : 'https';
  const options: IOptions = {
    hosts: target.hosts.map((host) => `${scheme}://${host}`),
    dialTimeout: CALL_TIMEOUT_MS,
    // Streams (watches, keepalives) stay open; unary calls get a deadline.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
  };
  if (target.tls !== undefined) {
    options.credentials = { rootCertificate: target.tls.ca, certChain: target.tls.cert, privateKey: target.tls.key };
  }
  return new Etcd3(options);
}

export function withTimeout<T>(promise: Promise<T>, what: string, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(EtcdErrors.timedOut({ what, ms: timeoutMs })), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
