// CONTRACT (owned by the scheduler work): the deployment builds its Scheduler (registered under
// Tokens.Scheduler) through this function only.
export { createScheduler, type SchedulerOptions } from './create-scheduler.js';
export { NO_NODES_MESSAGE } from './refusal-text.js';
