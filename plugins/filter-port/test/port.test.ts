import { describe, expect, it } from 'vitest';
import { fakeNode, filterConformance, pluginProviders, runFilterCases } from '@swarm/plugin-sdk/testing';
import plugin from '@swarm/filter-port';

const port = pluginProviders(plugin).filter('port');

const COMPOSE_WEB = { 'com.docker.compose.project': 'px', 'com.docker.compose.service': 'web' };

const withContainer = (name: string, container: Parameters<typeof fakeNode>[0]['containers']) =>
  fakeNode({ name, containers: container ?? [] });

describe('port filter', () => {
  it('is registered as port', () => expect(port.name).toBe('port'));
  filterConformance(port, { it });

  runFilterCases(
    port,
    [
      {
        name: 'bridge: a host port bound on every interface blocks the node',
        config: { publish: ['80:80'] },
        nodes: [withContainer('node1', [{ name: 'web', publish: ['80:80'] }]), fakeNode({ name: 'node2' })],
        pass: ['node2'],
        reasons: { node1: 'port 80 (Bridge mode)' },
        conditions: ['port 80 (Bridge mode)'],
      },
      {
        name: 'bridge: a Compose replacement is not blocked by the container it replaces (same project and service)',
        config: {
          publish: ['80:80'],
          labels: { ...COMPOSE_WEB, 'com.docker.compose.replace': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
        },
        nodes: [
          withContainer('node1', [
            {
              name: 'px-web-1',
              id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
              publish: ['80:80'],
              labels: COMPOSE_WEB,
            },
          ]),
          withContainer('node2', [{ name: 'other', publish: ['80:80'] }]),
        ],
        pass: ['node1'],
      },
      {
        name: 'bridge: a replacement still clashes with every other container holding the port',
        config: {
          publish: ['80:80'],
          labels: { ...COMPOSE_WEB, 'com.docker.compose.replace': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
        },
        nodes: [
          withContainer('node1', [
            {
              name: 'px-web-1',
              id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
              publish: ['80:80'],
              labels: COMPOSE_WEB,
            },
            { name: 'other', publish: ['80:80'] },
          ]),
        ],
        pass: [],
      },
      {
        name: 'bridge: a replace label naming a container of another service frees nothing',
        config: {
          publish: ['80:80'],
          labels: { ...COMPOSE_WEB, 'com.docker.compose.replace': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
        },
        nodes: [
          withContainer('node1', [
            {
              name: 'px-db-1',
              id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
              publish: ['80:80'],
              labels: { ...COMPOSE_WEB, 'com.docker.compose.service': 'db' },
            },
          ]),
          withContainer('node2', [
            {
              name: 'px-web-1',
              id: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
              publish: ['80:80'],
              labels: COMPOSE_WEB,
            },
          ]),
        ],
        pass: [],
      },
      {
        name: 'bridge: other host ports do not clash',
        config: { publish: ['8080:80'] },
        nodes: [withContainer('node1', [{ name: 'web', publish: ['80:80'] }])],
        pass: ['node1'],
      },
      {
        name: 'bridge: distinct IPs share a port, 0.0.0.0 and empty clash with any IP',
        config: { publish: ['127.0.0.2:80:80'] },
        nodes: [
          withContainer('node1', [{ name: 'a', publish: ['127.0.0.1:80:80'] }]),
          withContainer('node2', [{ name: 'b', publish: ['0.0.0.0:80:80'] }]),
          withContainer('node3', [{ name: 'c', publish: ['127.0.0.2:80:80'] }]),
        ],
        pass: ['node1'],
      },
      {
        name: 'bridge: a request on every interface clashes with a specific IP',
        config: { publish: ['80:80'] },
        nodes: [withContainer('node1', [{ name: 'a', publish: ['127.0.0.1:80:80'] }])],
        pass: [],
      },
      {
        name: 'bridge: stopped and pending containers still hold their ports',
        config: { publish: ['80:80'] },
        nodes: [
          withContainer('node1', [{ name: 'old', state: 'exited', publish: ['80:80'] }]),
          withContainer('node2', [{ name: 'new', state: 'pending', publish: ['80:80'] }]),
        ],
        pass: [],
      },
      {
        name: 'bridge: the first clashing binding is the reason',
        config: { publish: ['80:80', '443:443'] },
        nodes: [withContainer('node1', [{ name: 'tls', publish: ['443:443'] }])],
        pass: [],
        reasons: { node1: 'port 443 (Bridge mode)' },
        conditions: ['port 80 (Bridge mode)', 'port 443 (Bridge mode)'],
      },
      {
        name: 'bridge: host ports compare as written (a range clashes with the same range only)',
        config: { publish: ['8000-8010:80', '9000:90'] },
        nodes: [
          withContainer('node1', [{ name: 'a', publish: ['8000-8010:80'] }]),
          withContainer('node2', [{ name: 'b', publish: ['8000:80'] }]),
          withContainer('node3', [{ name: 'c', publish: ['9000:90'] }]),
        ],
        pass: ['node2'],
        reasons: { node1: 'port 8000-8010 (Bridge mode)', node3: 'port 9000 (Bridge mode)' },
      },
      {
        name: 'host mode: an exposed port taken by a host-mode container blocks the node',
        config: { network: 'host', expose: ['80'] },
        nodes: [
          withContainer('node1', [{ name: 'h', network: 'host', expose: ['80'] }]),
          withContainer('node2', [{ name: 'b', expose: ['80'], publish: ['80:80'] }]),
        ],
        pass: ['node2'],
        reasons: { node1: 'port 80/tcp (Host mode)' },
        conditions: ['port 80/tcp (Host mode)'],
      },
      { name: 'no published port: nothing to check', config: { expose: ['80'] }, nodes: [fakeNode({ name: 'node1' })], inactive: true },
      {
        name: 'publish without host port: nothing to check',
        config: { publish: ['80'] },
        nodes: [fakeNode({ name: 'node1' })],
        inactive: true,
      },
    ],
    { it },
  );
});
