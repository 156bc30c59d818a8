import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the random strategy raises. */
export const RandomErrors = {
  unknownOption: defineError('random.option-unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string }) => `strategy "random": unknown option "${p.key}"; known options: seed`,
  }),
  seedNotInteger: defineError('random.seed', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { raw: unknown }) => `strategy "random": option seed must be an integer, got ${JSON.stringify(p.raw)}`,
  }),
} as const;
