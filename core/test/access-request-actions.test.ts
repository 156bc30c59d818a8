import { describe, expect, it } from 'vitest';
import { requestAction } from '../dist/access/request-actions.js';

const action = (method: string, path: string, query = '') => requestAction(method, path, new URLSearchParams(query));

describe('the action a request is', () => {
  it.each([
    ['GET', '/_ping', 'system.ping'],
    ['GET', '/info', 'system.info'],
    ['GET', '/events', 'system.events'],
    ['GET', '/containers/json', 'container.list'],
    ['POST', '/containers/create', 'container.create'],
    ['POST', '/containers/prune', 'container.prune'],
    ['GET', '/images/json', 'image.list'],
    ['POST', '/build', 'image.build'],
    ['GET', '/networks', 'network.list'],
    ['POST', '/networks/create', 'network.create'],
    ['GET', '/volumes', 'volume.list'],
    ['POST', '/volumes/create', 'volume.create'],
    ['GET', '/plugins', 'plugin.list'],
    ['POST', '/_swarm/v1/explain', 'swarm.explain'],
    ['GET', '/_swarm/metrics', 'swarm.metrics'],
    ['GET', '/_swarm/healthz', 'swarm.health'],
    ['GET', '/swarm/ui/', 'swarm.web'],
    ['POST', '/swarm/ui/api/explain', 'swarm.web.action'],
    ['GET', '/services', 'system.info'],
    ['POST', '/swarm/init', 'system.info'],
  ])('%s %s is %s', (method, path, expected) => {
    expect(action(method, path).action).toBe(expected);
  });

  it.each([
    ['GET', '/containers/web/json', 'container.inspect'],
    ['GET', '/containers/node1/web/logs', 'container.logs'],
    ['GET', '/containers/web/attach/ws', 'container.attach'],
    ['HEAD', '/containers/web/archive', 'container.archive'],
    ['PUT', '/containers/web/archive', 'container.archive.write'],
    ['POST', '/containers/web/exec', 'container.exec'],
    ['POST', '/containers/web/kill', 'container.kill'],
    ['POST', '/containers/web/update', 'container.update'],
    ['DELETE', '/containers/web', 'container.remove'],
  ])('%s %s is %s on the container it names', (method, path, expected) => {
    const found = action(method, path);
    expect(found.action).toBe(expected);
    expect(found.target?.kind).toBe('container');
    expect(found.target?.reference).toBe(path.includes('node1/') ? 'node1/web' : 'web');
  });

  it('names the container a commit is of', () => {
    expect(action('POST', '/commit', 'container=web&repo=x')).toEqual({
      action: 'container.commit',
      target: { kind: 'container', reference: 'web' },
    });
  });

  it('judges exec start and resize as exec in the container, exec inspect as its own action', () => {
    expect(action('POST', '/exec/abc/start')).toEqual({ action: 'container.exec', target: { kind: 'exec', reference: 'abc' } });
    expect(action('POST', '/exec/abc/resize').action).toBe('container.exec');
    expect(action('GET', '/exec/abc/json').action).toBe('exec.inspect');
  });

  it('tells a pull from an import', () => {
    expect(action('POST', '/images/create', 'fromImage=busybox').action).toBe('image.pull');
    expect(action('POST', '/images/create', 'fromSrc=-').action).toBe('image.import');
  });

  it('reads image references with registries and tags', () => {
    expect(action('POST', '/images/127.0.0.1:5000/app:1/push')).toEqual({
      action: 'image.push',
      target: { kind: 'image', reference: '127.0.0.1:5000/app:1' },
    });
    expect(action('DELETE', '/images/busybox:latest').action).toBe('image.remove');
  });

  it('marks the requests whose body is part of the question', () => {
    expect(action('POST', '/containers/create').withBody).toBe(true);
    expect(action('POST', '/containers/web/update').withBody).toBe(true);
    expect(action('POST', '/networks/n/connect').withBody).toBe(true);
    expect(action('POST', '/containers/web/start').withBody).toBeFalsy();
  });

  it('fails closed: a path no route serves is an unknown action', () => {
    expect(action('POST', '/containers/web/explode').action).toBe('container.unknown');
    expect(action('GET', '/no/such/thing').action).toBe('unknown');
  });
});
