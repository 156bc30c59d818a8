import {
  PLUGIN_API_VERSION,
  type Cluster,
  type ClusterEvent,
  type Container,
  type DeploymentConfig,
  type Scheduler,
} from '@swarm/plugin-sdk';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { ContainerPlacement, ManagerMetrics, ManagerView, PluginStatus, ReplicationStatus } from '@swarm/plugin-sdk/web';
import { reschedulePolicy, swarmDirectives } from '@swarm/plugin-sdk/helpers';
import type { ApiMetrics } from '../api/metrics.js';
import { formatExplanation } from '../explain/explanation-table.js';
import { runConfigFromArguments } from '../explain/run-arguments.js';
import type { Deployment } from '../deployment/deployment.js';
import { kindLabel } from '../plugins/extension-kinds.js';
import type { ManagerRole } from '../replication/manager-role.js';
import { withRoleRows } from '../replication/status-rows.js';

export interface ManagerViewParts {
  readonly deployment: Deployment;
  readonly cluster: Cluster;
  readonly scheduler: Scheduler;
  readonly version: string;
  readonly metrics: ApiMetrics;
  readonly role?: ManagerRole;
}

/** A ManagerView and the subscription it keeps for counting events. */
export interface HostedManagerView extends ManagerView {
  close(): void;
}

function policyOf(config: ContainerConfig): string {
  try {
    return reschedulePolicy(config);
  } catch (error) {
    return `invalid (${(error as Error).message})`;
  }
}

function pluginStatuses(deployment: Deployment): PluginStatus[] {
  return deployment.plugins.map((plugin) => ({
    name: plugin.manifest.name,
    version: plugin.manifest.version,
    apiRange: plugin.manifest.apiVersion,
    packageName: plugin.packageName,
    builtin: plugin.builtin,
    provides: deployment.providers.filter((entry) => entry.plugin === plugin).map((entry) => `${kindLabel(entry.kind)} ${entry.name}`),
  }));
}

function replicationStatus(config: DeploymentConfig, role: ManagerRole | undefined): ReplicationStatus {
  if (!config.replication.enabled || !role) return { enabled: false, role: 'primary' };
  return {
    enabled: true,
    role: role.isPrimary ? 'primary' : 'replica',
    primary: role.primary,
    advertise: config.replication.advertise,
  };
}

/** What the host lets web extensions read: everything answered from memory, nothing changed. */
export function createManagerView(parts: ManagerViewParts): HostedManagerView {
  const { deployment, cluster, scheduler, metrics, role } = parts;
  const { config } = deployment;
  return {
    version: parts.version,
    apiVersion: PLUGIN_API_VERSION,
    driver: cluster.driverName,
    strategy: scheduler.strategyName,
    filters: scheduler.filterNames,
    nodes: () => cluster.nodes(),
    containers: () => cluster.containers(),
    subscribe: (listener: (event: ClusterEvent) => void) => cluster.subscribe(listener),
    clusterRows: () => withRoleRows(role, cluster.info().systemStatus).filter(([key]) => !/^\s/.test(key)),
    runConfig: (args) => runConfigFromArguments(args),
    explain: (containerConfig) => {
      const explanation = cluster.explain(containerConfig);
      return { explanation, text: formatExplanation(explanation) };
    },
    placement: (container: Container): ContainerPlacement => ({
      reschedulePolicy: policyOf(container.config),
      constraints: swarmDirectives(container.config, 'constraints'),
      affinities: swarmDirectives(container.config, 'affinities'),
      history: deployment.placements?.history(container) ?? [],
    }),
    plugins: () => pluginStatuses(deployment),
    discovery: () => deployment.discoveryStatus(),
    replication: () => replicationStatus(config, role),
    // the numbers /_swarm/metrics serves, read the way its collection reads them
    metrics: (): ManagerMetrics => {
      const now = metrics.snapshot();
      return {
        uptimeSeconds: now.uptimeSeconds,
        rssBytes: now.rssBytes,
        heapUsedBytes: now.heapUsedBytes,
        nodes: now.nodes,
        containers: now.containers,
        apiRequests: now.requests,
        apiErrors: now.errors,
        placements: { scheduled: now.scheduled, failed: now.failed },
        events: now.events,
      };
    },
    close: () => undefined,
  };
}
