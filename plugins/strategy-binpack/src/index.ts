import { definePlugin } from '@swarm/plugin-sdk';
import { strategyOptionsFrom } from '@swarm/plugin-sdk/helpers';
import { BinpackStrategy } from './binpack-strategy.js';

export { BinpackStrategy };

/** Fills the most reserved node that still fits first (Swarm classic's binpack strategy, alias binpacking). */
export const plugin = definePlugin({
  name: '@swarm/strategy-binpack',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Fills the most reserved node that still fits first (Swarm classic's binpack strategy, alias binpacking).",
  register(context) {
    context.strategy('binpack', { useFactory: (resolver) => new BinpackStrategy(strategyOptionsFrom(resolver)) });
    context.strategy('binpacking', { useFactory: (resolver) => new BinpackStrategy(strategyOptionsFrom(resolver), 'binpacking') });
  },
});

export default plugin;
