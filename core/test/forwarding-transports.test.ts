import type { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { transportFor, type ForwardedRequest, type ForwardedRoute } from '../dist/forwarding/index.js';

// The table at the top of core/src/forwarding/index.ts, row by row: which transport a forwarded
// request takes. The e2e files (api-containers, api-clients, api-images, replication-*) show that
// each transport answers as dockerd does.
function request(method: string, options: { upgrade?: boolean; headers?: Record<string, string> } = {}): ForwardedRequest {
  return {
    req: { method, headers: options.headers ?? {} } as IncomingMessage,
    res: {} as ServerResponse,
    upgrade: options.upgrade ? { socket: new Duplex(), head: Buffer.alloc(0) } : undefined,
  };
}

const container = (operation: string): ForwardedRoute => ({ kind: 'container', operation });
const exec = (operation: string): ForwardedRoute => ({ kind: 'exec', operation });

describe('engine forwarding picks its transport by route', () => {
  it.each([
    ['an upgraded container attach', container('attach'), request('POST', { upgrade: true }), 'tunnel'],
    ['a websocket attach', container('attach/ws'), request('GET', { upgrade: true }), 'tunnel'],
    ['an upgraded exec start', exec('start'), request('POST', { upgrade: true }), 'tunnel'],
    ['a container attach without Upgrade', container('attach'), request('POST'), 'raw-stream'],
    ['an exec start without Upgrade', exec('start'), request('POST'), 'raw-stream'],
    ['container logs', container('logs'), request('GET'), 'framed-pipe'],
    ['container export', container('export'), request('GET'), 'framed-pipe'],
    ['container stats', container('stats'), request('GET'), 'framed-pipe'],
    ['an archive read', container('archive'), request('GET'), 'framed-pipe'],
    ['an archive read with a body', container('archive'), request('GET', { headers: { 'content-length': '2' } }), 'proxy'],
    ['an archive upload', container('archive'), request('PUT', { headers: { 'content-length': '2' } }), 'proxy'],
    ['an archive HEAD', container('archive'), request('HEAD'), 'proxy'],
    ['a container top', container('top'), request('GET'), 'proxy'],
    ['a container stop', container('stop'), request('POST'), 'proxy'],
    ['an exec resize', exec('resize'), request('POST'), 'proxy'],
    ['an exec inspect', exec('json'), request('GET'), 'proxy'],
    ['an image save', { kind: 'image-save' } as const, request('GET'), 'framed-pipe'],
    [
      'an image save with a chunked body',
      { kind: 'image-save' } as const,
      request('GET', { headers: { 'transfer-encoding': 'chunked' } }),
      'proxy',
    ],
    ["a replica's upgraded request", { kind: 'primary' } as const, request('POST', { upgrade: true }), 'tunnel'],
    ["a replica's request", { kind: 'primary' } as const, request('GET'), 'proxy'],
    ['any other call', { kind: 'call' } as const, request('POST'), 'proxy'],
    // Only attach and exec start switch protocols: any other upgraded request is refused, never tunnelled
    ['an upgraded call', { kind: 'call' } as const, request('POST', { upgrade: true }), 'refused'],
    ['an upgraded container kill', container('kill'), request('POST', { upgrade: true }), 'refused'],
    ['an upgraded container inspect', container('json'), request('GET', { upgrade: true }), 'refused'],
    ['an upgraded container logs', container('logs'), request('GET', { upgrade: true }), 'refused'],
    ['an upgraded exec resize', exec('resize'), request('POST', { upgrade: true }), 'refused'],
    ['an upgraded image save', { kind: 'image-save' } as const, request('GET', { upgrade: true }), 'refused'],
  ])('%s', (_name, route, forwarded, transport) => {
    expect(transportFor(route, forwarded)).toBe(transport);
  });
});
