// A kubeconfig file, as `kubeadm` writes one: the cluster with its CA, users that present a
// client certificate or a bearer token, and a context per user.
import { writeFileSync } from 'node:fs';
import yaml from 'js-yaml';

export interface KubeconfigUser {
  name: string;
  /** PEM client certificate and key, or a bearer token. */
  cert?: string;
  key?: string;
  token?: string;
}

export interface KubeconfigSpec {
  server: string;
  ca: string;
  users: KubeconfigUser[];
  /** Context names are `<cluster>-<user>`; the first user's is current. */
  cluster?: string;
  namespace?: string;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

export function kubeconfigText(spec: KubeconfigSpec): string {
  const cluster = spec.cluster ?? 'double';
  const contexts = spec.users.map((user) => ({
    name: `${cluster}-${user.name}`,
    context: { cluster, user: user.name, namespace: spec.namespace ?? 'default' },
  }));
  const document = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: spec.server, 'certificate-authority-data': b64(spec.ca) } }],
    users: spec.users.map((user) => ({
      name: user.name,
      user: user.token
        ? { token: user.token }
        : { 'client-certificate-data': b64(user.cert ?? ''), 'client-key-data': b64(user.key ?? '') },
    })),
    contexts,
    'current-context': contexts[0]?.name ?? '',
  };
  return yaml.dump(document, { lineWidth: -1 });
}

export function writeKubeconfig(file: string, spec: KubeconfigSpec): string {
  writeFileSync(file, kubeconfigText(spec), { mode: 0o600 });
  return file;
}
