import { definePlugin } from '@swarm/plugin-sdk';
import { strategyOptionsFrom } from '@swarm/plugin-sdk/helpers';
import { SpreadStrategy } from './spread-strategy.js';

export { SpreadStrategy };

/** Places each container on the least reserved node (Swarm classic's spread strategy). */
export const plugin = definePlugin({
  name: '@swarm/strategy-spread',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Places each container on the least reserved node (Swarm classic's spread strategy).",
  register(context) {
    context.strategy('spread', { useFactory: (resolver) => new SpreadStrategy(strategyOptionsFrom(resolver)) });
  },
});

export default plugin;
