// The deployment builds its Scheduler (registered under Tokens.Scheduler) through createScheduler.
export { createScheduler, type PlacementOutcome, type SchedulerOptions } from './create-scheduler.js';
