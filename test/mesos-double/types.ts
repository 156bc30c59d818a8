// The Mesos v1 JSON shapes the double reads and writes (include/mesos/v1/mesos.proto, scheduler.proto).
export interface Value {
  value: string;
}

export interface Range {
  begin: number;
  end: number;
}

export interface Resource {
  name: string;
  type: 'SCALAR' | 'RANGES' | 'SET';
  scalar?: { value: number };
  ranges?: { range: Range[] };
  role?: string;
}

export interface Attribute {
  name: string;
  type: 'TEXT';
  text: Value;
}

export interface TaskInfoJson {
  name?: string;
  task_id?: Value;
  agent_id?: Value;
  resources?: Resource[];
  command?: { shell?: boolean; value?: string; arguments?: string[]; environment?: { variables?: Array<{ name: string; value: string }> } };
  container?: {
    type?: string;
    docker?: {
      image?: string;
      network?: string;
      port_mappings?: Array<{ host_port: number; container_port: number; protocol?: string }>;
      parameters?: Array<{ key: string; value: string }>;
    };
  };
}

export interface CallJson {
  type?: string;
  framework_id?: Value;
  subscribe?: {
    framework_info?: {
      user?: string;
      name?: string;
      id?: Value;
      failover_timeout?: number;
      checkpoint?: boolean;
      role?: string;
      hostname?: string;
    };
  };
  accept?: {
    offer_ids?: Value[];
    operations?: Array<{ type?: string; launch?: { task_infos?: TaskInfoJson[] } }>;
    filters?: { refuse_seconds?: number };
  };
  decline?: { offer_ids?: Value[]; filters?: { refuse_seconds?: number } };
  kill?: { task_id?: Value; agent_id?: Value; kill_policy?: { grace_period?: { nanoseconds?: number } } };
  acknowledge?: { agent_id?: Value; task_id?: Value; uuid?: string };
  reconcile?: { tasks?: Array<{ task_id?: Value; agent_id?: Value }> };
  [key: string]: unknown;
}

export type TaskState =
  | 'TASK_STAGING'
  | 'TASK_STARTING'
  | 'TASK_RUNNING'
  | 'TASK_FINISHED'
  | 'TASK_FAILED'
  | 'TASK_KILLED'
  | 'TASK_ERROR'
  | 'TASK_LOST'
  | 'TASK_DROPPED';

export const TERMINAL: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_FINISHED',
  'TASK_FAILED',
  'TASK_KILLED',
  'TASK_ERROR',
  'TASK_LOST',
  'TASK_DROPPED',
]);

export interface TaskStatusJson {
  task_id: Value;
  state: TaskState;
  source: 'SOURCE_MASTER' | 'SOURCE_AGENT' | 'SOURCE_EXECUTOR';
  agent_id?: Value;
  message?: string;
  reason?: string;
  data?: string;
  uuid?: string;
  timestamp: number;
  container_status?: { container_id: Value };
}
