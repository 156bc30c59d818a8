import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@swarm/plugin-sdk';
import { FileFrameworkIdStore, ZkFrameworkIdStore, type FrameworkIdStore } from './framework-store.js';
import type { MasterAddress } from './master-info.js';
import type { MasterLocation } from './master-url.js';
import { ZkLeaderDetector } from './zk-leader-detector.js';
import { ZkSession } from './zk-session.js';

export interface MasterFinder {
  readonly store: FrameworkIdStore;
  start(onMaster: (master: MasterAddress | undefined, why?: string) => void): void;
  stop(): void;
  /** Where the master is looked up and how that goes, for `info`. */
  describe(): string;
}

function defaultStateFile(location: MasterLocation & { kind: 'direct' }, frameworkName: string): string {
  return join(homedir(), '.swarm', `mesos-${frameworkName}-${location.host}_${location.port}.json`);
}

/** What to check when ZooKeeper refuses to show the Mesos group (a digest ACL). */
function credentialsHint(auth: string | undefined): string {
  if (auth === undefined) return 'the group is protected by an ACL and the zk:// URL has no user:password@';
  return `the credentials of user ${auth.slice(0, Math.max(0, auth.indexOf(':')))} in the zk:// URL are wrong or not allowed to read it`;
}

/** Finds the leading master (ZooKeeper group or fixed address) and where the framework ID lives. */
export function createMasterFinder(
  location: MasterLocation,
  frameworkName: string,
  stateFile: string | undefined,
  logger: Logger,
): MasterFinder {
  if (location.kind === 'direct') {
    const store = new FileFrameworkIdStore(stateFile ?? defaultStateFile(location, frameworkName));
    return {
      store,
      start: (onMaster) => onMaster({ host: location.host, port: location.port }),
      stop: () => undefined,
      describe: () => `mesos://${location.host}:${location.port}`,
    };
  }
  let detector: ZkLeaderDetector | undefined;
  const session = new ZkSession({
    servers: location.servers,
    auth: location.auth,
    onConnected: (client) => {
      logger.info({ zk: location.servers }, 'mesos: connected to ZooKeeper');
      detector?.attach(client);
    },
    onDisconnected: (why) => {
      detector?.detach();
      logger.warn({ why }, `mesos: ${why}; keeping the current master until ZooKeeper is back`);
    },
  });
  const store = stateFile
    ? new FileFrameworkIdStore(stateFile)
    : new ZkFrameworkIdStore({ session, mesosPath: location.path, frameworkName });
  let lastWhy: string | undefined;
  return {
    store,
    start: (onMaster) => {
      detector = new ZkLeaderDetector(location.path, {
        leader: (address) => {
          lastWhy = undefined;
          onMaster(address);
        },
        noLeader: (reason, kind) => {
          const why = kind === 'denied' ? `${reason}: ${credentialsHint(location.auth)}` : reason;
          // The detector retries every second while the group is missing or denied: say it once.
          if (why !== lastWhy) logger.warn({ why }, 'mesos: no leading master');
          lastWhy = why;
          onMaster(undefined, why);
        },
      });
      session.open();
    },
    stop: () => {
      detector?.detach();
      session.close();
    },
    describe: () => `zk://${location.servers}${location.path} (ZooKeeper ${session.stateName()})`,
  };
}
