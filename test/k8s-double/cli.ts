// Runs the Kubernetes double by hand:
//   npm run k8s-double -- [--engines 127.0.0.2:2375,127.0.0.3:2375] [--hollow 100] [--port 6443]
//                         [--kubeconfig ./kubeconfig] [--metrics served|absent|unavailable] [--no-scheduler]
// then `kubectl --kubeconfig ./kubeconfig get nodes`. Ctrl-C stops it and removes its containers.
import { copyFileSync } from 'node:fs';
import { startKubernetesDouble, type KubernetesDoubleOptions, type NodeSpec } from './index.js';
import type { MetricsMode } from './api/metrics.js';

function parse(argv: string[]): { options: KubernetesDoubleOptions; kubeconfig?: string } {
  const options: KubernetesDoubleOptions = { bookmarkIntervalMs: 10_000 };
  const nodes: NodeSpec[] = [];
  let kubeconfig: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--engines':
        for (const address of value().split(',')) {
          const [host, port] = address.split(':');
          nodes.push({ engine: { host: host!, port: Number(port ?? 2375) } });
        }
        break;
      case '--hollow':
        options.hollowNodes = Number(value());
        break;
      case '--port':
        options.port = Number(value());
        break;
      case '--host':
        options.host = value();
        break;
      case '--kubeconfig':
        kubeconfig = value();
        break;
      case '--metrics':
        options.metrics = value() as MetricsMode;
        break;
      case '--no-scheduler':
        options.scheduler = false;
        break;
      default:
        throw new Error(`unknown flag ${flag} (see the head of test/k8s-double/cli.ts)`);
    }
  }
  options.nodes = nodes;
  return { options, kubeconfig };
}

try {
  const { options, kubeconfig } = parse(process.argv.slice(2));
  const double = await startKubernetesDouble(options);
  if (kubeconfig) copyFileSync(double.kubeconfig, kubeconfig);
  process.stdout.write(
    `API server: ${double.url}\nkubeconfig: ${kubeconfig ?? double.kubeconfig} (contexts double-admin, double-developer, double-token)\n`,
  );
  const stop = () => {
    void double.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`k8s-double: ${(error as Error).message}\n`);
  process.exit(1);
}
