// Helpers for tests of (and with) the double: raw HTTPS requests, kubectl runs, polling.
import { execFile, spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import type { KubernetesDouble } from './double.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: <T = Record<string, unknown>>() => T;
}

export interface RawOptions {
  method?: string;
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** A bearer token; the double's admin token by default, `null` for none. */
  token?: string | null;
}

/** One HTTPS request to the double's API server, trusting its CA. */
export function raw(double: KubernetesDouble, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(path, double.url);
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? double.adminToken : options.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  if (options.accept) headers.Accept = options.accept;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: options.method ?? 'GET', headers, ca: double.ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An object as a watch event carries it (a Status for ERROR events). */
export interface WatchedObject {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  [key: string]: unknown;
}

export interface WatchStream {
  events: Array<{ type: string; object: WatchedObject }>;
  ended: Promise<void>;
  close(): void;
}

/** Opens a raw watch and collects its events. */
export function rawWatch(double: KubernetesDouble, path: string, token: string = double.adminToken): Promise<WatchStream> {
  const url = new URL(path, double.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers: { Authorization: `Bearer ${token}` }, ca: double.ca }, (res) => {
      const events: WatchStream['events'] = [];
      let buffer = '';
      let endResolve: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, newline)));
          buffer = buffer.slice(newline + 1);
        }
      });
      res.on('end', () => endResolve());
      res.on('close', () => endResolve());
      res.on('error', () => endResolve());
      resolve({ events, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  /** The kubectl binary (kubectl 1.32 on PATH by default). */
  binary?: string;
  context?: string;
  kubeconfig?: string;
  input?: string;
  timeoutMs?: number;
}

export function kubectl(double: KubernetesDouble, args: string[], options: KubectlOptions = {}): Promise<CliResult> {
  const full = [
    '--kubeconfig',
    options.kubeconfig ?? double.kubeconfig,
    ...(options.context ? ['--context', options.context] : []),
    ...args,
  ];
  return new Promise((resolve) => {
    const child = execFile(
      options.binary ?? 'kubectl',
      full,
      { timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
        resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs a command under a pseudo-terminal (util-linux `script`), feeding it `steps` of input with pauses. */
export function underTty(command: string, steps: Array<{ afterMs: number; text: string }>, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let delay = 0;
    for (const step of steps) {
      delay += step.afterMs;
      setTimeout(() => child.stdin.write(step.text), delay);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
}
