/**
 * The subset of the Mesos v1 scheduler API (JSON encoding) this driver speaks. Field names follow
 * `include/mesos/v1/mesos.proto` and `include/mesos/v1/scheduler/scheduler.proto`.
 */
export interface Value {
  value: string;
}

export interface Scalar {
  value: number;
}

export interface Range {
  begin: number;
  end: number;
}

export interface Resource {
  name: string;
  type: 'SCALAR' | 'RANGES' | 'SET';
  scalar?: Scalar;
  ranges?: { range: Range[] };
  set?: { item: string[] };
  role?: string;
}

export interface Attribute {
  name: string;
  type: 'SCALAR' | 'RANGES' | 'SET' | 'TEXT';
  text?: Value;
  scalar?: Scalar;
  ranges?: { range: Range[] };
  set?: { item: string[] };
}

export interface Address {
  hostname?: string;
  ip?: string;
  port: number;
}

export interface Offer {
  id: Value;
  framework_id: Value;
  agent_id: Value;
  hostname: string;
  url?: { scheme: string; address: Address; path?: string };
  resources: Resource[];
  attributes?: Attribute[];
}

export type TaskState =
  | 'TASK_STAGING'
  | 'TASK_STARTING'
  | 'TASK_RUNNING'
  | 'TASK_KILLING'
  | 'TASK_FINISHED'
  | 'TASK_FAILED'
  | 'TASK_KILLED'
  | 'TASK_ERROR'
  | 'TASK_LOST'
  | 'TASK_DROPPED'
  | 'TASK_UNREACHABLE'
  | 'TASK_GONE'
  | 'TASK_GONE_BY_OPERATOR'
  | 'TASK_UNKNOWN';

export interface TaskStatus {
  task_id: Value;
  state: TaskState;
  message?: string;
  source?: string;
  reason?: string;
  /** base64. */
  data?: string;
  agent_id?: Value;
  timestamp?: number;
  /** base64 of the 16 UUID bytes; present only on updates that must be acknowledged. */
  uuid?: string;
}

export interface Parameter {
  key: string;
  value: string;
}

export interface PortMapping {
  host_port: number;
  container_port: number;
  protocol?: string;
}

export interface TaskInfo {
  name: string;
  task_id: Value;
  agent_id: Value;
  resources: Resource[];
  command: { shell: boolean; value?: string; arguments?: string[]; environment?: { variables: Array<{ name: string; value: string }> } };
  container: {
    type: 'DOCKER';
    docker: {
      image: string;
      network: 'HOST' | 'BRIDGE' | 'NONE' | 'USER';
      port_mappings?: PortMapping[];
      parameters?: Parameter[];
      force_pull_image?: boolean;
    };
  };
}

export interface Filters {
  refuse_seconds?: number;
}

export interface FrameworkInfo {
  user: string;
  name: string;
  id?: Value;
  failover_timeout?: number;
  checkpoint?: boolean;
  role?: string;
  hostname?: string;
}

export interface MasterInfoJson {
  id?: string;
  /** Legacy: IPv4 as a uint32 in network byte order read as little-endian (first octet = lowest byte). */
  ip?: number;
  port?: number;
  hostname?: string;
  pid?: string;
  version?: string;
  address?: Address;
}

export type Event =
  | { type: 'SUBSCRIBED'; subscribed: { framework_id: Value; heartbeat_interval_seconds?: number; master_info?: MasterInfoJson } }
  | { type: 'OFFERS'; offers: { offers?: Offer[] } }
  | { type: 'RESCIND'; rescind: { offer_id: Value } }
  | { type: 'UPDATE'; update: { status: TaskStatus } }
  | { type: 'FAILURE'; failure: { agent_id?: Value; executor_id?: Value; status?: number } }
  | { type: 'ERROR'; error: { message: string } }
  | { type: 'HEARTBEAT' }
  | { type: 'MESSAGE' | 'INVERSE_OFFERS' | 'RESCIND_INVERSE_OFFER' | 'UPDATE_OPERATION_STATUS' | 'UNKNOWN' };

export type Call =
  | { type: 'SUBSCRIBE'; framework_id?: Value; subscribe: { framework_info: FrameworkInfo } }
  | {
      type: 'ACCEPT';
      framework_id: Value;
      accept: { offer_ids: Value[]; operations: Array<{ type: 'LAUNCH'; launch: { task_infos: TaskInfo[] } }>; filters?: Filters };
    }
  | { type: 'DECLINE'; framework_id: Value; decline: { offer_ids: Value[]; filters?: Filters } }
  | { type: 'REVIVE'; framework_id: Value }
  | { type: 'SUPPRESS'; framework_id: Value }
  | { type: 'KILL'; framework_id: Value; kill: { task_id: Value; agent_id?: Value; kill_policy?: KillPolicy } }
  | { type: 'ACKNOWLEDGE'; framework_id: Value; acknowledge: { agent_id: Value; task_id: Value; uuid: string } }
  | { type: 'RECONCILE'; framework_id: Value; reconcile: { tasks: Array<{ task_id: Value; agent_id?: Value }> } }
  | { type: 'TEARDOWN'; framework_id: Value };

/** Terminal task states: the task will get no further update. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_FINISHED',
  'TASK_FAILED',
  'TASK_KILLED',
  'TASK_ERROR',
  'TASK_LOST',
  'TASK_DROPPED',
  'TASK_GONE',
  'TASK_GONE_BY_OPERATOR',
]);

/** How long the executor waits between SIGTERM and SIGKILL (Mesos' `KillPolicy`). */
export interface KillPolicy {
  grace_period: { nanoseconds: number };
}
