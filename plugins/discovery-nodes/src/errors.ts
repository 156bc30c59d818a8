import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the nodes discovery raises (its list is parsed by the SDK's helpers, which raise their own). */
export const NodesDiscoveryErrors = {
  fixedList: defineError('nodes.fixed-list', {
    code: ErrorCodes.NOT_SUPPORTED,
    message: (p: { addr: string }) => `the nodes discovery is a fixed list: cannot register ${p.addr}`,
  }),
} as const;
