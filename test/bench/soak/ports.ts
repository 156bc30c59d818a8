import { createServer } from 'node:net';

function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve(true)));
  });
}

/**
 * Throws unless every port is free: another soak on the same ports (a test run beside a manual
 * one) would otherwise find its etcd answering and its managers' ports taken, and the two runs
 * would write into each other's store and load each other's managers.
 */
export async function requireFreePorts(ports: readonly number[]): Promise<void> {
  const taken: number[] = [];
  for (const port of ports) if (!(await free(port))) taken.push(port);
  if (taken.length > 0) throw new Error(`ports ${taken.join(', ')} are in use (another soak?); pick others with --port-base`);
}
