import { describe, expect, it } from 'vitest';
import { checkBody } from '../dist/api/validation/check-body.js';
import { containerCreateBody, containerUpdateBody, execCreateBody, networkCreateBody } from '../dist/api/validation/engine-bodies.js';
import { parseGoJson } from '../dist/api/validation/go-json.js';
import type { GoType } from '../dist/api/validation/go-types.js';

/** A body as written (repeated keys and number spellings kept), as swarm sends it on. */
function read(text: string, type: GoType = containerCreateBody): Record<string, unknown> {
  return checkBody(parseGoJson(text) as Record<string, unknown>, type);
}

const refusal = (text: string, type: GoType = containerCreateBody): string => {
  try {
    read(text, type);
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe("bodies read as dockerd's decoder reads them", () => {
  it('puts a field written in another case under its own name', () => {
    const body = read('{"Image":"busybox","hostconfig":{"privileged":true,"BINDS":["/etc:/x"]},"labels":{"a":"1"}}');
    expect(body).toEqual({ Image: 'busybox', HostConfig: { Privileged: true, Binds: ['/etc:/x'] }, Labels: { a: '1' } });
  });

  it('folds the Kelvin sign and the long s as Go does, and no other rune', () => {
    const body = read('{"Image":"busybox","HostConfig":{"Bindſ":["/etc:/x"],"LinKs":["db"],"Prıvileged":true,"IPC\u0130ode":"host"}}');
    expect(body.HostConfig).toEqual({ Binds: ['/etc:/x'], Links: ['db'] });
  });

  it('leaves out what the engine ignores: keys that name no field, at any depth', () => {
    expect(read('{"cpuquota":-1,"SomethingNew":1,"Privileged":true}', containerUpdateBody)).toEqual({ CpuQuota: -1 });
    expect(read('{"Image":"b","HostConfig":{"Mounts":[{"Target":"/x","Extra":1}]},"Resources":{"Memory":1}}')).toEqual({
      Image: 'b',
      HostConfig: { Mounts: [{ Target: '/x' }] },
    });
  });

  it('checks the fields under their own names, refusing in the words of Go', () => {
    expect(refusal('{"privileged":"yes"}', execCreateBody)).toBe(
      'json: cannot unmarshal string into Go struct field Privileged of type bool',
    );
    expect(refusal('{"Image":"b","ExposedPorts":{"80/tcp":"x"}}')).toBe(
      'json: cannot unmarshal string into Go struct field ExposedPorts.80/tcp of type struct {}',
    );
  });
});

describe('the top-level HostConfig fields dockerd up to 26.1 reads (legacy-host-config.ts)', () => {
  it('are the HostConfig when the body has none, or a null one', () => {
    expect(read('{"Image":"b","Binds":["/:/host"],"VolumesFrom":["c"]}').HostConfig).toEqual({ Binds: ['/:/host'], VolumesFrom: ['c'] });
    expect(read('{"Image":"b","HostConfig":null,"privileged":true}')).toEqual({ Image: 'b', HostConfig: { Privileged: true } });
    expect(read('{"Image":"b","HostConfig":{"Privileged":true},"HOSTCONFIG":null,"CapAdd":"SYS_ADMIN"}').HostConfig).toEqual({
      CapAdd: ['SYS_ADMIN'],
    });
  });

  it('are ignored beside a HostConfig, but for the five that fill its zero fields', () => {
    const body = read(
      '{"Image":"b","Binds":["/:/h"],"Privileged":true,"Memory":5,"MemorySwap":9,"CpuShares":2,"CpusetCpus":"1","VolumeDriver":"v","HostConfig":{"MemorySwap":7}}',
    );
    expect(body).toEqual({ Image: 'b', HostConfig: { MemorySwap: 7, Memory: 5, CpuShares: 2, CpusetCpus: '1', VolumeDriver: 'v' } });
    expect(read('{"Image":"b","HostConfig":{}}')).toEqual({ Image: 'b', HostConfig: {} });
  });

  it('take a top-level Cpuset into an empty CpusetCpus, when there is a HostConfig at all', () => {
    expect(read('{"Image":"b","Cpuset":"0","HostConfig":{}}').HostConfig).toEqual({ CpusetCpus: '0' });
    expect(read('{"Image":"b","Cpuset":"0","CpusetCpus":"1"}').HostConfig).toEqual({ CpusetCpus: '1' });
    expect(read('{"Image":"b","Cpuset":"0"}')).toEqual({ Image: 'b' });
    expect(read('{"Image":"b","Cpuset":"0","Binds":null}').HostConfig).toEqual({ CpusetCpus: '0' });
  });

  it('are checked even where they are ignored, as Go decodes them first', () => {
    expect(refusal('{"Image":"b","HostConfig":{},"Privileged":"yes"}')).toBe(
      'json: cannot unmarshal string into Go struct field Privileged of type bool',
    );
  });
});

describe('repeated keys, null and numbers as encoding/json decodes them', () => {
  it('merges a repeated struct, and null empties a pointer but leaves a value', () => {
    expect(read('{"Image":"b","HostConfig":{"Privileged":true},"HostConfig":{"Memory":1}}').HostConfig).toEqual({
      Privileged: true,
      Memory: 1,
    });
    expect(read('{"Image":"b","HostConfig":{"Privileged":true,"privileged":null,"Init":true,"init":null}}').HostConfig).toEqual({
      Privileged: true,
    });
    expect(
      read('{"Image":"b","HostConfig":{"LogConfig":{"Type":"x"},"LogConfig":null,"LogConfig":{"Config":{"a":"1"}}}}').HostConfig,
    ).toEqual({
      LogConfig: { Type: 'x', Config: { a: '1' } },
    });
  });

  it('adds a repeated map’s keys, and a null value is the zero value', () => {
    const body = read('{"Image":"b","Labels":{"a":"1"},"Labels":{"b":null},"HostConfig":{"Sysctls":{"x":"1"},"Sysctls":null}}');
    expect(body).toEqual({ Image: 'b', Labels: { a: '1', b: '' }, HostConfig: {} });
  });

  it('decodes a repeated list into the items it held, even those a shorter one hid', () => {
    const binds = read('{"Image":"b","HostConfig":{"Binds":["/a:/a","/b:/b","/c:/c"],"Binds":["d:/d"],"binds":["e:/e",null,null]}}');
    expect(binds.HostConfig).toEqual({ Binds: ['e:/e', '/b:/b', '/c:/c'] });
    const mounts = read('{"Image":"b","HostConfig":{"Mounts":[{"Type":"bind","Source":"/"}],"Mounts":[{"Target":"/x"}]}}');
    expect(mounts.HostConfig).toEqual({ Mounts: [{ Type: 'bind', Source: '/', Target: '/x' }] });
    expect(read('{"Image":"b","HostConfig":{"Binds":["/a:/a"],"Binds":[],"Binds":[null]}}').HostConfig).toEqual({ Binds: [''] });
    expect(read('{"Image":"b","Cmd":["a","b"],"Cmd":[null]}').Cmd).toEqual(['']);
  });

  it('takes only integers written as integers, within the field’s size', () => {
    expect(read('{"Image":"b","HostConfig":{"Memory":-0,"BlkioWeight":500}}').HostConfig).toEqual({ Memory: 0, BlkioWeight: 500 });
    expect(refusal('{"Image":"b","HostConfig":{"Memory":1e3}}')).toBe(
      'json: cannot unmarshal number 1e3 into Go struct field HostConfig.Memory of type int64',
    );
    expect(refusal('{"Image":"b","HostConfig":{"Memory":8.0}}')).toMatch(/number 8\.0 into .*HostConfig\.Memory/);
    expect(refusal('{"Image":"b","HostConfig":{"BlkioWeight":-0}}')).toMatch(/number -0 into .*BlkioWeight of type uint16/);
    expect(refusal('{"Image":"b","HostConfig":{"BlkioWeight":65536}}')).toMatch(/number 65536 into .*uint16/);
    expect(refusal('{"Image":"b","HostConfig":{"Memory":"1"}}')).toMatch(/string into .*HostConfig\.Memory of type int64/);
    expect(refusal('{"Name":"n","EnableIPv6":1}', networkCreateBody)).toMatch(/number into .*EnableIPv6 of type bool/);
  });

  it('refuses a body Go refuses even when a later key overwrites the bad value', () => {
    expect(refusal('{"Image":"b","HostConfig":{"Privileged":"yes","Privileged":false}}')).toMatch(/HostConfig\.Privileged of type bool/);
  });
});
