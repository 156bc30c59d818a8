import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The stack of a plugin's fault from its first frame in the plugin's own folder (the frames of the
 * host's loader above it say nothing to the plugin's author); the whole stack when none is.
 */
export function pluginStack(error: unknown, pluginDir: string): string | undefined {
  if (!(error instanceof Error) || !error.stack) return undefined;
  const lines = error.stack.split('\n');
  const head = lines.findIndex((line) => line.trimStart().startsWith('at '));
  if (head === -1) return error.stack;
  const dir = pluginDir.endsWith(sep) ? pluginDir : pluginDir + sep;
  const own = lines.findIndex((line, index) => index >= head && inDir(line, dir));
  return own === -1 ? error.stack : [...lines.slice(0, head), ...lines.slice(own)].join('\n');
}

function inDir(frame: string, dir: string): boolean {
  const match = /(file:\/\/[^\s)]+|\/[^\s)]+)/.exec(frame);
  if (!match) return false;
  const path = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!.replace(/:\d+(:\d+)?$/, '')) : match[1]!;
  return path.startsWith(dir);
}
