// A small Docker engine authorization plugin for tests: an HTTP server (on a Unix socket, or TCP)
// answering /Plugin.Activate and /AuthZPlugin.AuthZReq|AuthZRes as the plugin protocol documents
// them, recording every call it gets, and denying by rules. dockerd (--authorization-plugin) and
// swarm's `docker` authorizer can sit in front of the same code, so what each sends can be compared.
// Plain JavaScript, so benchmarks run it without a build.
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { rm } from 'node:fs/promises';

const matches = (pattern, value) => pattern === undefined || (typeof pattern === 'string' ? pattern === value : pattern.test(value ?? ''));

/** The first rule that denies this call (AuthZReq body fields; `body` tests the decoded RequestBody), or undefined. */
export function denyingRule(rules, phase, request) {
  return rules.find(
    (rule) =>
      (rule.phase ?? 'request') === phase &&
      matches(rule.method, request.RequestMethod) &&
      matches(rule.uri, request.RequestUri) &&
      matches(rule.user, request.User ?? '') &&
      (rule.body === undefined || rule.body.test(Buffer.from(request.RequestBody ?? '', 'base64').toString('utf8'))),
  );
}

/**
 * Start the plugin. Options: `socketPath` or `port` (+ `host`), `implements` (["authz"]), `rules`
 * ({ method?, uri?, user?, phase?: 'request' | 'response', msg, fail? }: `fail` answers a 500 with that Err), `mode` ('answer' | 'error' |
 * 'garbage' | 'hang-up'), `answerDelayMs`.
 */
export async function startAuthzPlugin(options = {}) {
  const state = {
    rules: options.rules ?? [],
    mode: options.mode ?? 'answer',
    implements: options.implements ?? ['authz'],
    record: options.record ?? true,
  };
  const calls = [];
  const counts = {};
  const handle = (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      counts[req.url] = (counts[req.url] ?? 0) + 1;
      if (state.record) calls.push({ path: req.url, method: req.method, headers: req.headers, raw, body });
      const send = (status, value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        res.writeHead(status, { 'Content-Type': 'application/vnd.docker.plugins.v1.2+json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      };
      if (req.url === '/Plugin.Activate') return send(200, { Implements: state.implements });
      const phase = req.url === '/AuthZPlugin.AuthZReq' ? 'request' : req.url === '/AuthZPlugin.AuthZRes' ? 'response' : undefined;
      if (phase === undefined) return send(404, { Err: `unknown method ${req.url}` });
      if (state.mode === 'error') return send(500, { Err: 'the policy engine is down' });
      if (state.mode === 'garbage') return send(200, '<html>bad gateway</html>');
      if (state.answerText !== undefined) return send(200, state.answerText);
      if (state.mode === 'hang-up') return res.socket.destroy();
      const rule = denyingRule(state.rules, phase, body ?? {});
      if (rule?.fail !== undefined) return send(500, { Err: rule.fail });
      const answer = rule === undefined ? { Allow: true } : { Allow: false, Msg: rule.msg };
      if (options.answerDelayMs) setTimeout(() => send(200, answer), options.answerDelayMs);
      else send(200, answer);
    });
  };
  // `tls: { cert, key }` (PEM) serves https, for plugins reached through a spec's TLSConfig
  const server = options.tls === undefined ? createServer(handle) : createTlsServer(options.tls, handle);
  if (options.socketPath !== undefined) {
    await rm(options.socketPath, { force: true });
    await new Promise((resolve, reject) => server.once('error', reject).listen(options.socketPath, resolve));
  } else {
    await new Promise((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  }
  const address = server.address();
  return {
    socketPath: options.socketPath,
    url: typeof address === 'string' ? `unix://${address}` : `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${address.port}`,
    /** Every call, in arrival order: path, method, headers, raw text and parsed body. */
    calls,
    /** Calls per path, kept even when not recording. */
    counts,
    /** The AuthZReq and AuthZRes bodies only, in order. */
    authzCalls: () =>
      calls
        .filter((call) => call.path.startsWith('/AuthZPlugin.'))
        .map((call) => ({ phase: call.path === '/AuthZPlugin.AuthZReq' ? 'request' : 'response', ...call.body })),
    setRules: (rules) => void (state.rules = rules),
    setMode: (mode) => void (state.mode = mode),
    setAnswerText: (text) => void (state.answerText = text),
    setRecording: (on) => void (state.record = on),
    clear: () => void calls.splice(0),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
      if (options.socketPath !== undefined) await rm(options.socketPath, { force: true });
    },
  };
}
