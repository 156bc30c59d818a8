import { describe, it } from 'vitest';
import { authzConformance } from '@swarm/plugin-sdk/testing';
import { EXAMPLE_OPTIONS, rulesFactory } from './rules.js';

describe('rules authorizer: the SDK authz conformance kit', () => {
  void authzConformance(
    rulesFactory,
    {
      options: EXAMPLE_OPTIONS,
      invalidOptions: [
        {},
        { bindings: [{ group: 'a', role: 'edt' }] },
        { bindings: [], anonymous: true },
        { bindings: [{ user: 'x', role: 'view', scope: 'everything' }] },
      ],
    },
    { it },
  );
});

describe('rules authorizer: the kit with images scoped and anonymous view', () => {
  void authzConformance(rulesFactory, { options: { ...EXAMPLE_OPTIONS, images: 'scoped', anonymous: 'view' } }, { it });
});
