import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The workspace folders a checkout declares (`plugins/*` expanded), each with its package name. */
function workspaces(root: string): Array<{ dir: string; name: string }> {
  const declared = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const dirs = declared.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(root, pattern.slice(0, -2), entry.name, 'package.json')))
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  );
  return dirs.map((dir) => ({ dir, name: (JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string }).name }));
}

/**
 * swarm as it was at `commit`, built in a git worktree under the system's temp folder, for tests
 * that run two builds side by side (a rolling upgrade). The worktree borrows this checkout's npm
 * dependencies (every package but the workspace's own, which point at the worktree's folders),
 * so no registry is needed; the runtime dependencies must not have changed since `commit`.
 * Kept between runs: a second call for the same commit costs nothing. Returns the launcher
 * (`core/bin/swarm.js`) of that build.
 */
export async function earlierBuild(commit: string): Promise<string> {
  const dir = join(tmpdir(), `swarm-build-${commit}`);
  const launcher = join(dir, 'core', 'bin', 'swarm.js');
  // the marker names the checkout whose dependencies the build links to: another clone rebuilds
  const done = join(dir, '.built');
  // and the compiled CLI must still be there: a temp folder cleaned of build output keeps the marker
  const built = existsSync(join(dir, 'core', 'dist', 'cli', 'bin.js'));
  if (built && existsSync(done) && readFileSync(done, 'utf8') === `${commit} ${REPO}\n`) return launcher;
  await run('git', ['-C', REPO, 'worktree', 'prune']);
  if (existsSync(dir)) {
    await run('git', ['-C', REPO, 'worktree', 'remove', '--force', dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  await run('git', ['-C', REPO, 'worktree', 'add', '--detach', dir, commit]);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@swarm'), { recursive: true });
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === '@swarm' || entry.startsWith('.')) continue;
    symlinkSync(join(REPO, 'node_modules', entry), join(modules, entry));
  }
  for (const { dir: folder, name } of workspaces(dir)) {
    if (name.startsWith('@swarm/')) symlinkSync(join(dir, folder), join(modules, name));
  }
  const node = process.execPath;
  await run(node, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  await run(node, [join(dir, 'core', 'scripts', 'bundle-cli.mjs')], { cwd: dir });
  writeFileSync(done, `${commit} ${REPO}\n`);
  return launcher;
}
