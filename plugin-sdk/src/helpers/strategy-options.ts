import type { Resolver } from '../plugin.js';
import type { StrategyOptions } from '../scheduler.js';
import { Tokens } from '../tokens.js';

/** The deployment's strategy options (`--strategy-opt`, config file), or none when the host registered none. */
export function strategyOptionsFrom(resolver: Resolver): StrategyOptions {
  return resolver.isRegistered(Tokens.StrategyOptions, true) ? resolver.resolve<StrategyOptions>(Tokens.StrategyOptions) : {};
}
