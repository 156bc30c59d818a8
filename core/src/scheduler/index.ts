import type { Filter, Scheduler, Strategy } from '@swarm/plugin-sdk';

// CONTRACT (owned by the scheduler work): the deployment builds its Scheduler (registered under
// Tokens.Scheduler) through this function only.
export function createScheduler(filters: readonly Filter[], strategy: Strategy): Scheduler {
  void filters;
  void strategy;
  throw new Error('the scheduler pipeline is not built yet');
}
