import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error driver-mesos raises itself. */
export const MesosErrors = {
  /** Docker's text for a name in use, word for word as Swarm classic returns it. */
  nameInUse: defineError('mesos.name-in-use', {
    code: ErrorCodes.NAME_IN_USE,
    message: (p: { name: string }) =>
      `Conflict: The name ${p.name} is already assigned. You have to delete (or rename) that container to be able to assign ${p.name} to a container again.`,
  }),
} as const;
