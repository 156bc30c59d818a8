import { definePlugin } from '@swarm/plugin-sdk';
import { strategyOptionsFrom } from '@swarm/plugin-sdk/helpers';
import { RandomStrategy } from './random-strategy.js';

export { RandomStrategy };

/** Places containers on a random node (Swarm classic's random strategy); option seed for reproducible runs. */
export const plugin = definePlugin({
  name: '@swarm/strategy-random',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Places containers on a random node (Swarm classic's random strategy); option seed for reproducible runs.",
  register(context) {
    context.strategy('random', { useFactory: (resolver) => new RandomStrategy(strategyOptionsFrom(resolver)) });
  },
});

export default plugin;
