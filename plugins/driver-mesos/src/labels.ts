import { SWARM_LABEL_NAMESPACE } from '@swarm/plugin-sdk/helpers';

/** Labels the driver puts on task containers, as Swarm classic names them. */
export const MesosLabels = {
  task: `${SWARM_LABEL_NAMESPACE}.mesos.task`,
  name: `${SWARM_LABEL_NAMESPACE}.mesos.name`,
  detach: `${SWARM_LABEL_NAMESPACE}.mesos.detach`,
} as const;
