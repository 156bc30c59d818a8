#!/usr/bin/env node
// The image's HEALTHCHECK. One image runs both `swarm manage` and `swarm join`, and the operator
// chooses the listener and TLS at `docker run` time, so this reads them from the running swarm
// process itself (its command line, then its SWARM_HOST) instead of baking an address into the image.
//
//   manage: GET /_swarm/healthz on the first -H listener (over TLS when --tls/--tlsverify is given,
//           presenting a client certificate when --tlsverify asks for one); a manager that has no
//           /_swarm/healthz yet (404) is asked /_ping instead.
//   join:   it serves nothing, so a running (not zombie) process is all there is to check.
//
// Exit 0 healthy, 1 unhealthy, with one line saying why (docker keeps it in `docker inspect`).
// The client certificate is $DOCKER_CERT_PATH/{cert,key}.pem when DOCKER_CERT_PATH is set (as the
// docker CLI finds one), otherwise the manager's own --tlscert/--tlskey: that works when its
// certificate may also serve as a client certificate (no extendedKeyUsage, or clientAuth in it).
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';

const TIMEOUT_MS = Number(process.env.SWARM_HEALTHCHECK_TIMEOUT_MS ?? 4000);

function unhealthy(message) {
  console.log(`unhealthy: ${message}`);
  process.exit(1);
}

function argv(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The swarm process: PID 1 normally, or a child of an init (`docker run --init`). */
function findSwarm() {
  const pids = ['1', ...readdirSync('/proc').filter((name) => /^\d+$/.test(name) && name !== '1' && name !== String(process.pid))];
  for (const pid of pids) {
    const args = argv(pid);
    if (!args) continue;
    // `node /opt/swarm/node_modules/.bin/swarm manage ...`, or swarm itself when exec'd directly
    const bin = args.findIndex((arg) => /(^|\/)swarm(\.js)?$/.test(arg));
    if (bin < 0) continue;
    const command = args.slice(bin + 1).find((arg) => !arg.startsWith('-'));
    if (command === 'manage' || command === 'join') return { pid, command, args: args.slice(bin + 1) };
  }
  return undefined;
}

/** Values of an option as commander reads them: `--opt v`, `--opt=v`, and `-Xv` for a short one. */
function optionValues(args, long, short) {
  const values = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === long || (short && arg === short)) {
      if (i + 1 < args.length) values.push(args[++i]);
    } else if (arg.startsWith(`${long}=`)) values.push(arg.slice(long.length + 1));
    else if (short && arg.startsWith(short) && arg.length > short.length) values.push(arg.slice(short.length).replace(/^=/, ''));
  }
  return values;
}

function environment(pid, name) {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((pair) => pair.startsWith(`${name}=`));
    if (entry !== undefined) return entry.slice(name.length + 1);
  } catch {
    // not readable (another user): this process got the same image ENV and `docker run -e`
  }
  return process.env[name];
}

/** Where to connect for the first listener: `tcp://h:p`, `h:p`, `:p`, `unix:///path`. */
function target(host) {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const match = /^(?:tcp:\/\/)?(\[[^\]]*\]|[^:]*):(\d+)$/.exec(host);
  if (!match) unhealthy(`cannot read the listen address ${host}`);
  const bound = match[1].replace(/^\[|\]$/g, '');
  // a wildcard listener is reached on loopback
  const address = bound === '' || bound === '0.0.0.0' ? '127.0.0.1' : bound === '::' ? '::1' : bound;
  return { host: address, port: Number(match[2]) };
}

function get(path, options) {
  return new Promise((resolve, reject) => {
    const request = (options.tls ? https : http).get({ ...options.endpoint, ...options.tls, path, timeout: TIMEOUT_MS }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    request.on('error', reject);
  });
}

const swarm = findSwarm();
if (!swarm) unhealthy('no swarm manage or swarm join process is running');

if (swarm.command === 'join') {
  const state = readFileSync(`/proc/${swarm.pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
  if (state === 'Z') unhealthy(`swarm join (pid ${swarm.pid}) has exited`);
  console.log(`healthy: swarm join (pid ${swarm.pid}) is running`);
  process.exit(0);
}

const { args } = swarm;
const hosts = optionValues(args, '--host', '-H');
const host = hosts[0] ?? environment(swarm.pid, 'SWARM_HOST') ?? 'tcp://127.0.0.1:2375';
const verify = args.includes('--tlsverify');
const options = { endpoint: target(host), tls: undefined };
if (verify || args.includes('--tls')) {
  const certPath = environment(swarm.pid, 'DOCKER_CERT_PATH');
  const cert = certPath ? join(certPath, 'cert.pem') : optionValues(args, '--tlscert')[0];
  const key = certPath ? join(certPath, 'key.pem') : optionValues(args, '--tlskey')[0];
  options.tls = {
    // This checks that the manager answers, not who it is: its certificate need not name the
    // loopback address this connects to.
    rejectUnauthorized: false,
    ...(verify && cert && key ? { cert: readFileSync(cert), key: readFileSync(key) } : {}),
  };
}

try {
  let path = '/_swarm/healthz';
  let status = await get(path, options);
  if (status === 404) status = await get((path = '/_ping'), options);
  if (status !== 200) unhealthy(`${path} on ${host} answered ${status}`);
  console.log(`healthy: ${path} on ${host} answered 200`);
  process.exit(0);
} catch (error) {
  unhealthy(`${host}: ${error instanceof Error ? error.message : String(error)}`);
}
