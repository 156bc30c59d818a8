import { describe, expect, it } from 'vitest';
import { ErrorCodes, Tokens, type Cluster, type DeploymentConfig, type Scheduler } from '@swarm/plugin-sdk';
import { pluginProviders, testDeployment } from '@swarm/plugin-sdk/testing';
import manifest, { plugin } from '../src/index.js';

const deployment = (discovery: string, options: Record<string, string> = {}): DeploymentConfig =>
  testDeployment({ driver: 'mesos', discovery, options });

// These tests never place anything (placement runs through the real pipeline in test/e2e/mesos-*).
const scheduler = { strategyName: 'spread', filterNames: [] } as unknown as Scheduler;

describe('driver-mesos plugin manifest', () => {
  it('registers the "mesos" cluster driver through the public API', () => {
    expect(plugin).toBe(manifest);
    expect(manifest.name).toBe('@swarm/driver-mesos');
    const providers = pluginProviders(manifest, {
      [Tokens.DeploymentConfig]: deployment('mesos://127.0.0.1:5050'),
      [Tokens.Scheduler]: scheduler,
    });
    expect(providers.names(Tokens.ClusterDriver)).toEqual(['mesos']);
    const cluster = providers.get<Cluster>(Tokens.ClusterDriver, 'mesos');
    expect(cluster.driverName).toBe('mesos');
    expect(cluster.nodes()).toEqual([]);
  });

  it('refuses a malformed master address and bad options with coded errors', () => {
    const build = (config: DeploymentConfig) =>
      pluginProviders(manifest, { [Tokens.DeploymentConfig]: config, [Tokens.Scheduler]: scheduler }).get<Cluster>(
        Tokens.ClusterDriver,
        'mesos',
      );
    expect(() => build(deployment('zk://only-hosts'))).toThrow(expect.objectContaining({ code: ErrorCodes.DISCOVERY_INVALID }));
    expect(() => build(deployment('127.0.0.1:5050', { 'mesos.tasktimeout': 'soon' }))).toThrow(
      expect.objectContaining({ code: ErrorCodes.CONFIG_INVALID }),
    );
  });

  it("offers what the agents' engines can be read for, and nothing Mesos cannot do", async () => {
    const cluster = pluginProviders(manifest, {
      [Tokens.DeploymentConfig]: deployment('127.0.0.1:5050'),
      [Tokens.Scheduler]: scheduler,
    }).get<Cluster>(Tokens.ClusterDriver, 'mesos');
    expect(Object.keys(cluster.capabilities ?? {}).sort()).toEqual(['containerRestart', 'enginePlugins', 'images', 'networks', 'volumes']);
    expect(cluster.capabilities?.images?.list()).toEqual([]);
    await expect(cluster.createContainer({ Image: 'busybox:local' }, undefined)).rejects.toThrow(
      'resources constraints (-c and/or -m) are required by mesos',
    );
  });
});
