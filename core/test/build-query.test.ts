import { describe, expect, it } from 'vitest';
import { amendBuildQuery, importSource, readBuildQuery } from '../src/api/build-query.js';

/*
 * A build's query read as dockerd reads it into the container its RUN steps run in (moby's
 * newImageBuildOptions and hostConfigFromOptions), and an import's fromSrc as the URL it fetches.
 */

const read = (query: string) => readBuildQuery(new URLSearchParams(query));
const host = (query: string) => read(query).config.HostConfig;

describe('a build query as the engine reads it', () => {
  it('gives each parameter its HostConfig field', () => {
    expect(
      host(
        'networkmode=host&cgroupparent=/x&isolation=default&cpusetcpus=0-1&cpusetmems=0&memory=64&memswap=-1&cpushares=2' +
          '&cpuperiod=100000&cpuquota=5000&shmsize=1024&extrahosts=a:1.2.3.4&extrahosts=b:5.6.7.8&securityopt=seccomp=unconfined' +
          '&ulimits=[{"Name":"nofile","Soft":1,"Hard":2}]',
      ),
    ).toEqual({
      NetworkMode: 'host',
      CgroupParent: '/x',
      Isolation: 'default',
      CpusetCpus: '0-1',
      CpusetMems: '0',
      Memory: 64,
      MemorySwap: -1,
      CpuShares: 2,
      CpuPeriod: 100000,
      CpuQuota: 5000,
      ShmSize: 1024,
      ExtraHosts: ['a:1.2.3.4', 'b:5.6.7.8'],
      SecurityOpt: ['seccomp=unconfined'],
      Ulimits: [{ Name: 'nofile', Soft: 1, Hard: 2 }],
    });
  });

  it('takes the first of repeated parameters, as Go does', () => {
    expect(host('networkmode=host&networkmode=default')).toEqual({ NetworkMode: 'host' });
    expect(host('networkmode=&networkmode=host')).toEqual({});
  });

  it("reads numbers as Go's ParseInt, 0 when they do not parse", () => {
    expect(host('memory=%2B12')).toEqual({ Memory: 12 });
    expect(host('memory=12abc&cpushares=1e3&cpuquota=99999999999999999999')).toEqual({ Memory: 0, CpuShares: 0, CpuQuota: 0 });
  });

  it('refuses what dockerd refuses: a shmsize or ulimits it cannot read', () => {
    expect(() => read('shmsize=1k')).toThrow('invalid shmsize');
    expect(() => read('ulimits={"Name":"nofile"}')).toThrow('invalid ulimits');
    expect(() => read('ulimits=[')).toThrow('invalid ulimits');
  });

  it('names the URL in remote, but not the body as context or a BuildKit session', () => {
    expect(read('remote=http://127.0.0.1:2375/x').source).toEqual({ parameter: 'remote', url: 'http://127.0.0.1:2375/x' });
    expect(read('remote=github.com/a/b').source).toEqual({ parameter: 'remote', url: 'github.com/a/b' });
    expect(read('remote=client-session').source).toBeUndefined();
    expect(read('remote=').source).toBeUndefined();
    expect(read('t=x').source).toBeUndefined();
  });
});

describe("an admission controller's amendment", () => {
  it('goes back into the parameters it changed, and nothing else', () => {
    const query = new URLSearchParams('t=app&networkmode=host&extrahosts=a:1.2.3.4&memory=5');
    const { config } = readBuildQuery(query);
    const amended = amendBuildQuery(query, config, {
      ...config,
      HostConfig: { ...config.HostConfig, NetworkMode: 'none', ExtraHosts: ['b:5.6.7.8', 'c:9.9.9.9'], Memory: 0 },
    });
    expect(amended.toString()).toBe('t=app&networkmode=none&extrahosts=b%3A5.6.7.8&extrahosts=c%3A9.9.9.9');
    expect(amendBuildQuery(query, config, config)).toBe(query);
  });
});

describe('an import', () => {
  it('fetches the URL in fromSrc, http:// put in front of one without a scheme', () => {
    expect(importSource('-')).toBeUndefined();
    expect(importSource('http://127.0.0.1:2375/x.tar')).toEqual({ parameter: 'fromSrc', url: 'http://127.0.0.1:2375/x.tar' });
    expect(importSource('127.0.0.1:2375/x.tar')).toEqual({ parameter: 'fromSrc', url: 'http://127.0.0.1:2375/x.tar' });
  });
});
