import type { Filter, Logger, LogFn, Strategy } from '@swarm/plugin-sdk';
import { pluginProviders } from '@swarm/plugin-sdk/testing';
import affinity from '@swarm/filter-affinity';
import constraint from '@swarm/filter-constraint';
import containerslots from '@swarm/filter-containerslots';
import dependency from '@swarm/filter-dependency';
import health from '@swarm/filter-health';
import port from '@swarm/filter-port';
import whitelist from '@swarm/filter-whitelist';
import binpack from '@swarm/strategy-binpack';
import random from '@swarm/strategy-random';
import spread from '@swarm/strategy-spread';

/** Swarm classic's default filters, in its order, built from the real plugin packages. */
export function defaultFilters(): Filter[] {
  return [health, port, containerslots, dependency, affinity, constraint, whitelist].map((manifest) => {
    const providers = pluginProviders(manifest);
    return providers.filter(manifest.name.replace('@swarm/filter-', ''));
  });
}

export function strategy(name: 'spread' | 'binpack' | 'random', options: Record<string, string | number> = {}): Strategy {
  const manifest = { spread, binpack, random }[name];
  return pluginProviders(manifest).strategy(name, options);
}

export interface LogEntry {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

/** A logger that keeps what it is given (an in-memory sink, like pino's destination stream). */
export function memoryLogger(level: string): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (name: string): LogFn =>
    ((first: string | Record<string, unknown>, message?: string) => {
      entries.push(typeof first === 'string' ? { level: name, fields: {}, message: first } : { level: name, fields: first, message });
    }) as LogFn;
  const logger = {
    level,
    entries,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}
