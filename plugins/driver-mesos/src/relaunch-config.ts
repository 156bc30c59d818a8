import type { ContainerConfig, ContainerInspect } from '@swarm/plugin-sdk/docker';
import { MesosLabels } from './labels.js';

/**
 * The create config that runs a task's container again, read back from its engine's inspect (for
 * tasks launched before this manager started; the ones it launched keep their original config).
 * The labels the driver adds itself are dropped, since the new task gets its own.
 */
export function relaunchConfig(inspect: ContainerInspect): ContainerConfig {
  const config: ContainerConfig = { ...(inspect.Config ?? { Image: inspect.Image }) };
  const labels = { ...(config.Labels ?? {}) };
  for (const key of Object.values(MesosLabels)) delete labels[key];
  config.Labels = labels;
  if (inspect.HostConfig) config.HostConfig = inspect.HostConfig;
  return config;
}
