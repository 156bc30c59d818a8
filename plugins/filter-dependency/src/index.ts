import { definePlugin } from '@swarm/plugin-sdk';
import { DependencyFilter } from './dependency-filter.js';

export { DependencyFilter };

/** Places a container with its --volumes-from, --link and --net=container: targets (Swarm classic's dependency filter). */
export const plugin = definePlugin({
  name: '@swarm/filter-dependency',
  version: '1.0.0',
  apiVersion: '^2.0.0',
  description: "Places a container with its --volumes-from, --link and --net=container: targets (Swarm classic's dependency filter).",
  register(context) {
    context.filter('dependency', { useFactory: () => new DependencyFilter() });
  },
});

export default plugin;
