import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/*
 * One real dockerd with `--authorization-plugin NAME`, set up as test/testbed/testbed.sh sets up
 * its engines (own bridge, data root, loopback address, hostname and /etc/docker), plus a
 * `/etc/docker/plugins/NAME.spec` holding the plugin's unix:// URL: dockerd finds the plugin the
 * documented way, inside its own mount namespace. testbed.sh takes no extra daemon flags, so this
 * starts the daemon itself.
 */

export interface AuthzEngine {
  readonly index: number;
  /** `tcp://127.0.0.<index+1>:2375` (2376 with TLS). */
  readonly host: string;
  readonly socket: string;
  stop(): Promise<void>;
}

const root = () => process.env.SWARM_TESTBED_DIR ?? '/tmp/swarm-testbed';

async function sh(script: string): Promise<string> {
  return (await run('bash', ['-c', script], { maxBuffer: 1 << 20 })).stdout;
}

export interface AuthzEngineOptions {
  /** Folder with ca.pem, server-cert.pem, server-key.pem: the engine then listens with --tlsverify on 2376. */
  readonly tlsDir?: string;
}

/** Start engine `index` asking `pluginName` (reached at `pluginSocket`) about every request. */
export async function startEngineWithAuthz(
  index: number,
  pluginName: string,
  pluginSocket: string,
  options: AuthzEngineOptions = {},
): Promise<AuthzEngine> {
  const dir = join(root(), `engine${index}`);
  const ip = `127.0.0.${index + 1}`;
  const tls = options.tlsDir;
  const port = tls === undefined ? 2375 : 2376;
  const tlsArgs =
    tls === undefined ? '' : `--tlsverify --tlscacert ${tls}/ca.pem --tlscert ${tls}/server-cert.pem --tlskey ${tls}/server-key.pem `;
  await mkdir(join(dir, 'etc', 'plugins'), { recursive: true });
  await writeFile(join(dir, 'etc', 'plugins', `${pluginName}.spec`), `unix://${pluginSocket}\n`);
  await sh(
    `ip link show br${index} >/dev/null 2>&1 || { ip link add br${index} type bridge; ip addr add 172.30.${index}.1/24 dev br${index}; }; ip link set br${index} up`,
  );
  await sh(
    `setsid nohup unshare --uts --mount --propagation private sh -c "mount --bind ${dir}/etc /etc/docker && hostname node${index} && exec dockerd ` +
      `--host unix://${dir}/docker.sock --host tcp://${ip}:${port} ${tlsArgs}--ip ${ip} --iptables=false --bridge br${index} --storage-driver vfs ` +
      `--data-root ${dir}/data --exec-root ${dir}/exec --pidfile ${dir}/pid --shutdown-timeout 2 --authorization-plugin ${pluginName}" ` +
      `>${dir}/dockerd.log 2>&1 &`,
  );
  const socket = join(dir, 'docker.sock');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await run('docker', ['-H', `unix://${socket}`, 'version'], { timeout: 5000 });
      break;
    } catch {
      if (Date.now() > deadline)
        throw new Error(`dockerd ${index} did not start:\n${await readFile(join(dir, 'dockerd.log'), 'utf8').catch(() => '')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    index,
    host: `tcp://${ip}:${port}`,
    socket,
    stop: () => stopEngine(index, dir),
  };
}

/** Stops it by its own PID (never by name), then removes its state, as testbed.sh down does. */
async function stopEngine(index: number, dir: string): Promise<void> {
  await sh(
    `pid=$(cat ${dir}/pid 2>/dev/null) || true; if [ -n "$pid" ] && kill -0 $pid 2>/dev/null; then ` +
      `docker -H unix://${dir}/docker.sock ps -aq 2>/dev/null | xargs -r docker -H unix://${dir}/docker.sock rm -f >/dev/null 2>&1 || true; ` +
      `kill $pid; for i in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done; kill -9 $pid 2>/dev/null || true; fi; ` +
      `ip link del br${index} 2>/dev/null || true; umount -R ${dir}/data 2>/dev/null || true`,
  );
  await rm(dir, { recursive: true, force: true });
}
