import { execFile, spawn } from 'node:child_process';
import { request } from 'node:http';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real docker CLI against `host`, without DOCKER_API_VERSION so it negotiates. */
export async function docker(host: string, args: string[], input?: string, extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const env = { ...process.env, ...extraEnv };
  delete env.DOCKER_API_VERSION;
  if (input === undefined) {
    try {
      const { stdout, stderr } = await run('docker', ['-H', host, ...args], { env, maxBuffer: 256 << 20 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }
  return new Promise((resolve) => {
    const child = spawn('docker', ['-H', host, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = unknown>(): T;
}

/** A plain HTTP call (for what no client sends: bad bodies, unknown routes, raw headers). */
export function http(
  base: { host: string; port: number } | { socketPath: string },
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ ...base, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** host/port of a `tcp://host:port` address. */
export function hostPort(address: string): { host: string; port: number } {
  const url = new URL(address.replace(/^tcp:/, 'http:'));
  return { host: url.hostname, port: Number(url.port) };
}
