import { Tokens, definePlugin, noopLogger, type DeploymentConfig, type Logger, type Scheduler } from '@swarm/plugin-sdk';
import { MesosCluster } from './mesos-cluster.js';

export { MesosCluster, type MesosClusterDeps } from './mesos-cluster.js';
export { RecordIoDecoder, RecordIoError, encodeRecord } from './recordio.js';
export { parseMasterInfo, masterAddressFromInfo, ipFromUint32, leaderEntry, type MasterAddress } from './master-info.js';
export { parseMasterLocation, type MasterLocation } from './master-url.js';
export { parseMesosOptions, type MesosOptions } from './options.js';
export { parseDuration, formatDuration } from './duration.js';
export { EventDedup } from './event-dedup.js';
export { fromAgent, taskEvent, type EventSource } from './agent-events.js';
export { agentTlsFrom, type AgentTls } from './agent-tls.js';

export const plugin = definePlugin({
  name: '@swarm/driver-mesos',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'Cluster driver "mesos": swarm as an Apache Mesos framework',
  register(ctx) {
    ctx.driver('mesos', {
      useFactory: (r) =>
        new MesosCluster({
          config: r.resolve<DeploymentConfig>(Tokens.DeploymentConfig),
          scheduler: r.resolve<Scheduler>(Tokens.Scheduler),
          logger: r.isRegistered(Tokens.Logger, true) ? r.resolve<Logger>(Tokens.Logger) : noopLogger,
        }),
    });
  },
});

export default plugin;
