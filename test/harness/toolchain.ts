import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where test/setup-machine.sh unpacks Debian trixie's dockerd 26.1, Compose v2 and buildx. */
export const TRIXIE_DIR = process.env.SWARM_TRIXIE_DIR ?? '/opt/swarm-test/docker-trixie';

/** The CLI plugins folder (docker-compose 2.26, docker-buildx 0.13) that setup-machine.sh fills. */
export const CLI_PLUGINS = join(TRIXIE_DIR, 'docker-config', 'cli-plugins');

export interface DockerConfig {
  /** The folder to pass as DOCKER_CONFIG: its cli-plugins/ holds Compose v2 and buildx. */
  dir: string;
  /** The environment for a docker CLI child: DOCKER_CONFIG set, DOCKER_HOST and friends unset. */
  env: NodeJS.ProcessEnv;
  remove(): void;
}

/**
 * A DOCKER_CONFIG folder of the test's own with the v2 plugins: `docker compose` and `docker buildx`
 * then work with the machine's docker CLI, and whatever the CLI writes there (buildx instances,
 * contexts) stays out of the user's ~/.docker and out of other test files.
 */
export function dockerConfigWithPlugins(): DockerConfig {
  if (!existsSync(join(CLI_PLUGINS, 'docker-compose')) || !existsSync(join(CLI_PLUGINS, 'docker-buildx'))) {
    throw new Error(`Compose v2 and buildx are missing from ${CLI_PLUGINS}: run 'bash test/setup-machine.sh' (as root)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'swarm-docker-config-'));
  symlinkSync(CLI_PLUGINS, join(dir, 'cli-plugins'));
  const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_CONFIG: dir };
  for (const name of [
    'DOCKER_HOST',
    'DOCKER_CONTEXT',
    'DOCKER_TLS_VERIFY',
    'DOCKER_CERT_PATH',
    'DOCKER_BUILDKIT',
    'COMPOSE_FILE',
    'COMPOSE_PROJECT_NAME',
  ]) {
    delete env[name];
  }
  return { dir, env, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
