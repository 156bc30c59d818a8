import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Tokens, type DiscoveryBackend } from '@swarm/plugin-sdk';
import { discoveryConformance, pluginProviders, testDeployment } from '@swarm/plugin-sdk/testing';
import { plugin } from '../src/index.js';

// `k8s://` finds no engines (the driver reads nodes from the API server) and elects replicated
// managers' primary on a Lease: the SDK's discovery conformance holds for it as for any backend.
// Nothing here talks to an API server: opening the discovery only reads the kubeconfig.
const folder = mkdtempSync(join(tmpdir(), 'swarm-k8s-lease-conformance-'));
const kubeconfig = join(folder, 'kubeconfig');
writeFileSync(
  kubeconfig,
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:1" } }]',
    'users: [{ name: u, user: { token: t } }]',
    'contexts: [{ name: x, context: { cluster: c, user: u, namespace: default } }]',
    'current-context: x',
    '',
  ].join('\n'),
);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

function leaseDiscovery(driver = 'kubernetes'): DiscoveryBackend {
  const options = { 'kubernetes.kubeconfig': kubeconfig };
  return pluginProviders(plugin, {
    [Tokens.DeploymentConfig]: testDeployment({ driver, discovery: 'k8s://', options }),
  }).get<DiscoveryBackend>(Tokens.DiscoveryBackend, 'k8s');
}

describe('the Kubernetes lease discovery (k8s://) against the SDK discovery conformance', () => {
  void discoveryConformance(leaseDiscovery(), { uri: '', entries: [] }, { it });

  it('takes no registrations (swarm join refuses it) and offers leadership', async () => {
    const discovery = leaseDiscovery().open('', { heartbeat: 1, ttl: 3, options: {} });
    expect(discovery.register).toBeUndefined();
    expect(typeof discovery.leadership).toBe('function');
    await discovery.close();
  });
});
