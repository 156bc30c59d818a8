import { numberOf, record, type RuleContext } from './request-body.js';
import type { Violation } from './violation.js';

/**
 * The options of the log drivers baseline allows (json-file, local, none; moby's
 * `daemon/logger`): all about files the engine keeps for the container. An empty `LogConfig.Type`
 * is the engine's default driver, which may be one that sends logs over the network
 * (`syslog-address`, `gelf-address`), so its options are held to the same list.
 */
const LOG_OPTIONS = new Set([
  'max-size',
  'max-file',
  'compress',
  'labels',
  'labels-regex',
  'env',
  'env-regex',
  'tag',
  'mode',
  'max-buffer-size',
]);

export function logOptionsRule(context: RuleContext): Violation | undefined {
  const config = record(record(context.host.fields['LogConfig'])['Config']);
  const key = Object.keys(config).find((name) => !LOG_OPTIONS.has(name));
  return key === undefined
    ? undefined
    : {
        rule: 'log-options',
        field: `HostConfig.LogConfig.Config[${JSON.stringify(key)}]`,
        detail: ': not an option of json-file or local',
      };
}

/**
 * A negative OOM score makes the kernel's OOM killer spare the container and kill the host's
 * processes first (the engine itself runs at -500); 0 and above only volunteer the container.
 */
export function oomScoreRule(context: RuleContext): Violation | undefined {
  const score = numberOf(context.host, 'OomScoreAdj');
  return score !== undefined && score < 0
    ? { rule: 'oom-score', field: 'HostConfig.OomScoreAdj', detail: `: ${score} makes the host's processes die before the container` }
    : undefined;
}
