import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_TABLE, ruleNamesFor, type JudgedLevel } from '@swarm/admission-policy';
import { ANONYMOUS, CI, ROOT, admit, create, outcome } from './support.js';

/** The field paths of the Engine API's swagger per version and action (scripts/swagger-fields.mjs's output). */
const SWAGGER = JSON.parse(readFileSync(new URL('../scripts/swagger-fields.json', import.meta.url), 'utf8')) as Record<
  string,
  Record<string, string[]>
>;

/** The actions whose bodies the table must cover completely. */
const COVERED = ['container.create', 'container.update', 'container.exec', 'volume.create', 'network.create'];
const LEVELS: readonly JudgedLevel[] = ['baseline', 'restricted'];
const forbids = (rest: string) => `admission policy "baseline" forbids ${rest}`;

describe('the field table against the Engine API', () => {
  it('has the swagger of 1.41 (the API the manager serves) and of a newer engine', () => {
    expect(Object.keys(SWAGGER)).toContain('1.41');
    expect(Object.keys(SWAGGER).length).toBeGreaterThan(1);
  });

  it.each(Object.keys(SWAGGER).flatMap((version) => COVERED.map((action) => [version, action])))(
    'classifies every field of %s %s',
    (version, action) => {
      const fields = SWAGGER[version]![action] ?? [];
      expect(fields.length).toBeGreaterThan(0);
      const table = FIELD_TABLE[action] ?? {};
      expect(fields.filter((path) => !(path in table))).toEqual([]);
    },
  );

  it('has no row the swagger of no version has (a misspelt path classifies nothing)', () => {
    for (const action of COVERED) {
      const known = new Set(Object.values(SWAGGER).flatMap((actions) => actions[action] ?? []));
      expect(Object.keys(FIELD_TABLE[action]!).filter((path) => !known.has(path))).toEqual([]);
    }
  });

  it('names only rules the level applies to the action', () => {
    for (const [action, table] of Object.entries(FIELD_TABLE)) {
      for (const level of LEVELS) {
        const applied = ruleNamesFor(level, action as 'container.create');
        for (const [path, row] of Object.entries(table)) {
          const treatment = row[level];
          if (treatment.kind === 'rule') expect(applied, `${action} ${path} at ${level}`).toContain(treatment.rule);
        }
      }
    }
  });
});

describe('the allow-list at baseline', () => {
  it.each([
    ['a field the table refuses', create({ Annotations: { 'run.oci.keep_original_groups': '1' } }), 'HostConfig.Annotations: OCI'],
    ['OomKillDisable', create({ OomKillDisable: true }), 'HostConfig.OomKillDisable: a container the OOM killer may not kill'],
    ['another runtime', create({ Runtime: 'sysbox-runc' }), 'HostConfig.Runtime: "sysbox-runc" is not runc, io.containerd.runc.v2'],
    [
      'a log driver that sends elsewhere',
      create({ LogConfig: { Type: 'syslog' } }),
      'HostConfig.LogConfig.Type: "syslog" is not json-file',
    ],
    [
      "the default log driver's network options",
      create({ LogConfig: { Type: '', Config: { 'syslog-address': 'tcp://10.0.0.1:514' } } }),
      'HostConfig.LogConfig.Config["syslog-address"]: not an option of json-file or local',
    ],
    ['a negative OOM score', create({ OomScoreAdj: -1000 }), "HostConfig.OomScoreAdj: -1000 makes the host's processes die"],
    ['a field no API has', create({ Foo: 1 }), 'HostConfig.Foo: not a field of the Engine API (1.41 to 1.56) this policy knows'],
    [
      'a field re-cased (Go reads it all the same)',
      create({ privileged: true }),
      'HostConfig.privileged: the engine reads it as HostConfig.Privileged (Go matches field names without case); send Privileged',
    ],
    [
      'a HostConfig field at the top level',
      { Image: 'busybox', Binds: ['/:/host'] },
      'Binds: a HostConfig field at the top level (dockerd reads it there when HostConfig is absent); send it in HostConfig',
    ],
    [
      'a mount field no API has',
      create({ Mounts: [{ Type: 'tmpfs', Target: '/t', Bogus: 'x' }] }),
      'HostConfig.Mounts[0].Bogus: not a field',
    ],
    [
      'an endpoint field no API has',
      create({}, { NetworkingConfig: { EndpointsConfig: { net: { Aliases: ['a'], Extra: 1 } } } }),
      'NetworkingConfig.EndpointsConfig["net"].Extra: not a field',
    ],
    [
      'a cluster volume mount',
      create({ Mounts: [{ Type: 'cluster', Source: 'v', Target: '/v' }] }),
      'HostConfig.Mounts[0].Type: "cluster" is not a mount type',
    ],
  ])('refuses %s, named', (_what, config, expected) => {
    const text = outcome(admit(ANONYMOUS, config));
    expect(text.startsWith(forbids(expected)), text).toBe(true);
  });

  it('allows what the docker CLI sends for a plain run, unset fields included', () => {
    const cli = {
      Hostname: '',
      Domainname: '',
      User: '',
      AttachStdin: false,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      OpenStdin: false,
      StdinOnce: false,
      Env: null,
      Cmd: ['true'],
      Image: 'busybox',
      Volumes: {},
      WorkingDir: '',
      Entrypoint: null,
      OnBuild: null,
      Labels: { 'com.docker.swarm.owner': 'ci', 'com.docker.swarm.team': '' },
      HostConfig: {
        Binds: null,
        ContainerIDFile: '',
        LogConfig: { Type: '', Config: {} },
        NetworkMode: 'default',
        PortBindings: {},
        RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
        AutoRemove: false,
        VolumeDriver: '',
        VolumesFrom: null,
        ConsoleSize: [0, 0],
        CapAdd: null,
        CapDrop: null,
        CgroupnsMode: '',
        Dns: [],
        DnsOptions: [],
        DnsSearch: [],
        ExtraHosts: null,
        GroupAdd: null,
        IpcMode: '',
        Cgroup: '',
        Links: null,
        OomScoreAdj: 0,
        PidMode: '',
        Privileged: false,
        PublishAllPorts: false,
        ReadonlyRootfs: false,
        SecurityOpt: null,
        UTSMode: '',
        UsernsMode: '',
        ShmSize: 0,
        Isolation: '',
        CpuShares: 0,
        Memory: 0,
        NanoCpus: 0,
        CgroupParent: '',
        BlkioWeight: 0,
        BlkioWeightDevice: [],
        Devices: [],
        DeviceCgroupRules: null,
        DeviceRequests: null,
        MemorySwappiness: null,
        OomKillDisable: false,
        PidsLimit: null,
        Ulimits: null,
        MaskedPaths: null,
        ReadonlyPaths: null,
        Annotations: {},
        Mounts: [{ Type: 'tmpfs', Target: '/t', TmpfsOptions: { SizeBytes: 1024 } }],
      },
      NetworkingConfig: { EndpointsConfig: { default: { IPAMConfig: null, Links: null, Aliases: null } } },
    };
    expect(outcome(admit(ANONYMOUS, cli))).toBe('allowed');
  });

  it('leaves everything to a privileged caller', () => {
    expect(outcome(admit(ROOT, create({ Annotations: { a: 'b' }, Foo: 1, Runtime: 'kata' }, { Binds: ['/:/h'] })))).toBe('allowed');
    expect(outcome(admit(CI, create({ RestartPolicy: { Name: 'always' }, Init: true, ShmSize: 1 << 20 })))).toBe('allowed');
  });
});
