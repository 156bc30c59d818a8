// A discovery client in its own process, so tests can kill -9 it (no graceful session close).
// Usage: node discovery-kv-child.mjs <zk|etcd> <uri-after-scheme> <ttl> <join|campaign> <value>
const [scheme, uri, ttlText, mode, value] = process.argv.slice(2);
const ttl = Number(ttlText);
// Import only the backend in use: loading etcd3 (gRPC) is slow on a busy machine.
const backend =
  scheme === 'zk'
    ? new (await import('@swarm/discovery-zk')).ZkDiscoveryBackend()
    : new (await import('@swarm/discovery-etcd')).EtcdDiscoveryBackend();
const discovery = backend.open(uri, { heartbeat: 1, ttl, options: {} });

if (mode === 'join') {
  const beat = () =>
    discovery.register(value).then(
      () => console.log('registered'),
      (error) => console.log(`error ${error.message}`),
    );
  await beat();
  setInterval(beat, 1000);
} else {
  discovery.leadership('docker/swarm/leader', ttl).campaign(value, {
    onElected: () => console.log('elected'),
    onLost: () => console.log('lost'),
    onError: (error) => console.log(`error ${error.message}`),
  });
}
