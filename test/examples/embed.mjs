// Embedding swarm as a library: a deployment from a config object, no config file.
// Run after `npm run build`, with engines up (e.g. `bash test/testbed/testbed.sh up 2`):
//   node test/examples/embed.mjs [discovery]
import { createSwarm } from '@swarm/core';

const discovery = process.argv[2] ?? process.env.SWARM_DISCOVERY ?? 'nodes://127.0.0.2:2375,127.0.0.3:2375';

const swarm = await createSwarm({
  cluster: { discovery, engineRefreshMinInterval: '5s', engineRefreshMaxInterval: '10s' },
  scheduler: { strategy: 'binpack' },
  api: { hosts: ['tcp://127.0.0.1:0'] },
});
swarm.on('event', (event) => {
  if (event.Type === 'container') console.log(`event: ${event.Action} on ${event.node?.Name}`);
});
await swarm.start({ api: true }); // api: false to use it only as a library
console.log(`Docker API on ${swarm.addresses.join(', ')}`);

const container = await swarm.cluster.createContainer({ Image: 'busybox:local', Cmd: ['sleep', '60'] }, 'embedded-demo');
console.log(`placed on ${container.node.name}`);

const request = swarm.scheduler.request({ Image: 'busybox:local', HostConfig: { Memory: 2 ** 50 } });
console.log(`a 1 PiB container: ${swarm.scheduler.explain(request, swarm.cluster.nodes()).summary}`);

await swarm.cluster.removeContainer(container, { force: true });
await swarm.stop();
console.log('stopped');
