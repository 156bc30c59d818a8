import { describe, expect, it } from 'vitest';
import { checkBody } from '../dist/api/validation/check-body.js';
import { containerCreateBody, containerUpdateBody, execCreateBody } from '../dist/api/validation/engine-bodies.js';

describe("bodies read as dockerd's decoder reads them", () => {
  it('puts a field written in another case under its own name', () => {
    const body = checkBody(
      { Image: 'busybox', hostconfig: { privileged: true, BINDS: ['/etc:/x'] }, labels: { a: '1' } },
      containerCreateBody,
    );
    expect(body).toEqual({ Image: 'busybox', HostConfig: { Privileged: true, Binds: ['/etc:/x'] }, Labels: { a: '1' } });
  });

  it('folds the Kelvin sign and the long s as Go does', () => {
    const body = checkBody({ Image: 'busybox', HostConfig: { Bindſ: ['/etc:/x'], LinKs: ['db'] } }, containerCreateBody);
    expect(body.HostConfig).toEqual({ Binds: ['/etc:/x'], Links: ['db'] });
  });

  it('decodes a later key for a struct or map field into what an earlier one filled, and replaces anything else', () => {
    const body = checkBody(
      {
        Image: 'busybox',
        HostConfig: { Privileged: false, Binds: ['/a:/a'] },
        hostconfig: { privileged: true },
        Labels: { a: '1' },
        LABELS: { b: '2' },
      },
      containerCreateBody,
    );
    expect(body.HostConfig).toEqual({ Privileged: true, Binds: ['/a:/a'] });
    expect(body.Labels).toEqual({ a: '1', b: '2' });
  });

  it('keeps fields it does not model as they are, and checks the ones it does under their own names', () => {
    expect(checkBody({ cpuquota: -1, SomethingNew: 1 }, containerUpdateBody)).toEqual({ CpuQuota: -1, SomethingNew: 1 });
    expect(() => checkBody({ privileged: 'yes' }, execCreateBody)).toThrow(/Privileged/);
  });
});
