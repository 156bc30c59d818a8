import { describe, expect, it } from 'vitest';
import { ErrorCodes, SwarmError, type Cluster, type ClusterCapabilities } from '@swarm/plugin-sdk';
import { guardPlugin } from '../src/plugins/plugin-boundary.js';
import { pluginGuard } from '../src/plugins/plugin-guard.js';
import { recordingLogger } from './api-recording-logger.js';

/** A third-party driver with bugs: a method that throws, one that rejects, one capability that throws. */
function brokenDriver() {
  const capabilities: ClusterCapabilities = {
    volumes: {
      list: () => {
        throw new TypeError("Cannot read properties of undefined (reading 'map')");
      },
      find: () => undefined,
    },
  };
  return {
    driverName: 'sim',
    capabilities,
    calls: 0,
    containers() {
      return [];
    },
    info(): never {
      throw new TypeError("Cannot read properties of undefined (reading 'length')");
    },
    async createContainer(): Promise<never> {
      this.calls++;
      throw new RangeError('Invalid array length');
    },
    async removeContainer(): Promise<never> {
      throw new SwarmError(ErrorCodes.NOT_FOUND, 'No such container: web');
    },
  };
}

const setup = () => {
  const logger = recordingLogger();
  const driver = brokenDriver();
  const guard = pluginGuard((kind, name) => (kind === 'driver' && name === 'sim' ? 'swarm-plugin-sim@0.1.0' : undefined), logger);
  return { logger, driver, cluster: guardPlugin(driver, 'driver', 'sim', guard) as unknown as Cluster & { calls: number } };
};

describe('the plugin boundary around a third-party driver', () => {
  it('names the driver and its package in a coded 500 for a method that throws or rejects', async () => {
    const { cluster } = setup();
    expect(() => cluster.info()).toThrow(
      expect.objectContaining({
        code: ErrorCodes.PLUGIN_FAILED,
        httpStatus: 500,
        message: `driver "sim" (swarm-plugin-sim@0.1.0) failed in info(): Cannot read properties of undefined (reading 'length')`,
      }),
    );
    await expect(cluster.createContainer({ Image: 'busybox' }, undefined)).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_FAILED,
      message: 'driver "sim" (swarm-plugin-sim@0.1.0) failed in createContainer(): Invalid array length',
    });
  });

  it('lets the errors the driver meant through unchanged, and the methods keep their this', async () => {
    const { cluster, driver } = setup();
    await expect(cluster.removeContainer({} as never)).rejects.toMatchObject({
      code: ErrorCodes.NOT_FOUND,
      message: 'No such container: web',
    });
    await cluster.createContainer({ Image: 'busybox' }, undefined).catch(() => undefined);
    expect(driver.calls).toBe(1);
    expect(cluster.containers()).toEqual([]);
    expect(cluster.driverName).toBe('sim');
  });

  it('guards the capabilities it offers, and logs the stack once a minute, not per failure', () => {
    const { cluster, logger } = setup();
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(() => cluster.capabilities!.volumes!.list()).toThrow(
        'driver "sim" (swarm-plugin-sim@0.1.0) failed in list(): Cannot read properties',
      );
      expect(() => cluster.info()).toThrow('driver "sim"');
    }
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('driver "sim" (swarm-plugin-sim@0.1.0) failed in a call');
    expect(errors[0]!.fields).toMatchObject({ kind: 'driver', name: 'sim', plugin: 'swarm-plugin-sim@0.1.0' });
    expect(cluster.capabilities!.volumes!.find('x')).toBeUndefined();
  });
});
