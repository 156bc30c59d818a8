import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { findResource } from '../k8s-double/model/resources.js';
import { eventually, raw, rawWatch } from '../k8s-double/testing.js';

const RESOURCES_CONFIGMAPS = findResource('', 'v1', 'configmaps')!;

// The Kubernetes API server double on its own, with hollow nodes only (no engines): the API's
// semantics as @kubernetes/client-node and raw HTTPS requests see them.
let double: KubernetesDouble;
let core: k8s.CoreV1Api;
let kc: k8s.KubeConfig;

const statusOf = (error: unknown) => {
  const failure = error as { code?: number; body?: string };
  return { code: failure.code, ...(JSON.parse(failure.body ?? '{}') as Record<string, unknown>) };
};
async function failure(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return statusOf(error);
  }
  throw new Error('the request did not fail');
}

beforeAll(async () => {
  // leases every second, Unknown after 6 s without one: short enough for the lease test, long
  // enough that a loaded machine delaying a renewal does not turn a node Unknown in other tests
  double = await startKubernetesDouble({
    hollowNodes: 3,
    bookmarkIntervalMs: 300,
    nodeMonitorGracePeriodSeconds: 6,
    kubelet: { leaseRenewSeconds: 1 },
  });
  kc = new k8s.KubeConfig();
  kc.loadFromFile(double.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});

afterAll(async () => {
  await double?.stop();
});

describe('Kubernetes double: discovery and authentication', () => {
  it('serves /version, /api and /apis as a 1.32 API server does', async () => {
    expect((await raw(double, '/version')).json()).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4' });
    const resources = (await raw(double, '/api/v1')).json<{ resources: Array<{ name: string; verbs: string[] }> }>().resources;
    expect(resources.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'pods',
        'pods/binding',
        'pods/log',
        'pods/exec',
        'pods/attach',
        'pods/status',
        'nodes',
        'services',
        'endpoints',
        'namespaces',
        'events',
      ]),
    );
    const groups = (await raw(double, '/apis')).json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['coordination.k8s.io', 'discovery.k8s.io', 'authorization.k8s.io', 'metrics.k8s.io']));
    const index = (await raw(double, '/openapi/v3')).json<{ paths: Record<string, { serverRelativeURL: string }> }>();
    const document = (await raw(double, index.paths['api/v1']!.serverRelativeURL)).json<{
      paths: Record<string, { patch?: { parameters: Array<{ name: string }> } }>;
    }>();
    expect(document.paths['/api/v1/namespaces/{namespace}/pods/{name}']!.patch!.parameters.map((p) => p.name)).toContain('fieldValidation');
  });

  it('answers 401 to an unknown token and 403 with the RBAC text to a denied user', async () => {
    expect((await raw(double, '/api/v1/pods', { token: 'not-a-token' })).json()).toMatchObject({
      kind: 'Status',
      code: 401,
      reason: 'Unauthorized',
      message: 'Unauthorized',
    });
    expect((await raw(double, '/api/v1/namespaces', { token: null })).json()).toMatchObject({
      code: 403,
      message: 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    });
    const lift = double.deny({ user: 'token-user', verbs: ['list'], resources: ['pods'], namespaces: ['default'] });
    const denied = await raw(double, '/api/v1/namespaces/default/pods', { token: double.token });
    expect(denied.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods is forbidden: User "token-user" cannot list resource "pods" in API group "" in the namespace "default"',
      reason: 'Forbidden',
      details: { kind: 'pods' },
      code: 403,
    });
    expect((await raw(double, '/api/v1/namespaces/kube-system/pods', { token: double.token })).status).toBe(200);
    const review = await raw(double, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      method: 'POST',
      token: double.token,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } },
      },
    });
    expect(review.json<{ status: { allowed: boolean } }>().status.allowed).toBe(false);
    lift();
    expect((await raw(double, '/api/v1/namespaces/default/pods', { token: double.token })).status).toBe(200);
  });

  it('switches metrics.k8s.io between served, absent (404) and unavailable (503)', async () => {
    const nodes = await raw(double, '/apis/metrics.k8s.io/v1beta1/nodes');
    expect(nodes.json<{ kind: string; items: unknown[] }>()).toMatchObject({ kind: 'NodeMetricsList', items: expect.any(Array) });
    expect(nodes.json<{ items: unknown[] }>().items).toHaveLength(3);
    double.setMetrics('absent');
    expect((await raw(double, '/apis/metrics.k8s.io/v1beta1/nodes')).json()).toMatchObject({
      code: 404,
      message: 'the server could not find the requested resource',
    });
    expect((await raw(double, '/apis')).text).not.toContain('metrics.k8s.io');
    double.setMetrics('unavailable');
    expect((await raw(double, '/apis/metrics.k8s.io/v1beta1/pods')).status).toBe(503);
    double.setMetrics('served');
  });
});

describe('Kubernetes double: objects and Status errors', () => {
  it('creates, conflicts, validates and refuses as the API server does', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'settings' }, data: { a: '1' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'settings' } } }))).toMatchObject(
      {
        code: 409,
        reason: 'AlreadyExists',
        message: 'configmaps "settings" already exists',
      },
    );
    const stale = { ...created, data: { a: '2' } };
    await core.replaceNamespacedConfigMap({ name: 'settings', namespace: 'default', body: stale });
    expect(
      await failure(core.replaceNamespacedConfigMap({ name: 'settings', namespace: 'default', body: { ...created, data: { a: '3' } } })),
    ).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(await failure(core.readNamespacedPod({ name: 'nope', namespace: 'default' }))).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'pods "nope" not found',
      details: { name: 'nope', kind: 'pods' },
    });
    const invalid = await failure(
      core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name: 'Bad_Name', labels: { tier: 'a b' } }, spec: { containers: [{ name: 'web', image: '' }] } },
      }),
    );
    expect(invalid).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(invalid.message).toMatch(
      /^Pod "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/,
    );
    expect((invalid.details as { causes: Array<{ field: string }> }).causes.map((c) => c.field)).toEqual([
      'metadata.name',
      'metadata.labels',
      'spec.containers[0].image',
    ]);
    expect(
      await failure(
        core.createNamespacedPod({
          namespace: 'nowhere',
          body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox:local' }] } },
        }),
      ),
    ).toMatchObject({
      code: 404,
      message: 'namespaces "nowhere" not found',
    });
  });

  it('drops unknown fields with a warning, or refuses them under fieldValidation=Strict', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict' }, data: { a: '1' }, bogus: true };
    const warned = await raw(double, '/api/v1/namespaces/default/configmaps', { method: 'POST', body });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"bogus\\""');
    expect(warned.json()).not.toHaveProperty('bogus');
    const strict = await raw(double, '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      method: 'POST',
      body: { ...body, metadata: { name: 'strict2' } },
    });
    expect(strict.json()).toMatchObject({
      code: 400,
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    });
    const wrongType = await raw(double, '/api/v1/namespaces/default/pods', {
      method: 'POST',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: '80' }] }] } },
    });
    expect(wrongType.json()).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(wrongType.json<{ message: string }>().message).toContain(
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
  });

  it('generates names, applies defaults and admission, and patches three ways', async () => {
    const pod = await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { generateName: 'gen-', labels: { app: 'gen' } },
        spec: {
          schedulerName: 'nobody',
          containers: [{ name: 'c', image: 'busybox:local', resources: { limits: { cpu: '0.5', memory: '1024Mi' } } }],
        },
      },
    });
    expect(pod.metadata!.name).toMatch(/^gen-[b-z2-9]{5}$/);
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      serviceAccountName: 'default',
      schedulerName: 'nobody',
    });
    expect(pod.spec!.containers[0]!.resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { cpu: '500m', memory: '1Gi' },
    });
    expect(pod.spec!.containers[0]!.volumeMounts![0]!.mountPath).toBe('/var/run/secrets/kubernetes.io/serviceaccount');
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
    const name = pod.metadata!.name!;
    const patch = (type: string, body: unknown) =>
      raw(double, `/api/v1/namespaces/default/pods/${name}`, { method: 'PATCH', contentType: type, body });
    expect(
      (
        await patch('application/strategic-merge-patch+json', {
          metadata: { labels: { tier: 'front' } },
          spec: { containers: [{ name: 'c', image: 'busybox:2' }] },
        })
      ).json<{ spec: { containers: unknown[] } }>().spec.containers,
    ).toHaveLength(1);
    expect(
      (await patch('application/merge-patch+json', { metadata: { labels: { app: null } } })).json<{ metadata: { labels: object } }>()
        .metadata.labels,
    ).toEqual({ tier: 'front' });
    expect(
      (await patch('application/json-patch+json', [{ op: 'add', path: '/metadata/annotations', value: { note: 'x' } }])).json<{
        metadata: { annotations: object };
      }>().metadata.annotations,
    ).toEqual({ note: 'x' });
    const forbidden = await patch('application/merge-patch+json', { spec: { restartPolicy: 'Never' } });
    expect(forbidden.json()).toMatchObject({ code: 422 });
    expect(forbidden.json<{ message: string }>().message).toContain(
      'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`',
    );
    expect((await patch('text/plain', {})).status).toBe(415);
  });

  it('binds a pod once through pods/binding and refuses a second binding', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'bind-me' }, spec: { schedulerName: 'swarm', containers: [{ name: 'c', image: 'busybox:local' }] } },
    });
    const bound = await raw(double, '/api/v1/namespaces/default/pods/bind-me/binding', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' }, target: { kind: 'Node', name: 'hollow-1' } },
    });
    expect(bound.json()).toMatchObject({ kind: 'Status', status: 'Success', code: 201 });
    const again = await failure(
      core.createNamespacedPodBinding({
        name: 'bind-me',
        namespace: 'default',
        body: { metadata: { name: 'bind-me' }, target: { kind: 'Node', name: 'hollow-2' } },
      }),
    );
    expect(again).toMatchObject({
      code: 409,
      message: 'Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "hollow-1"',
    });
    const running = await eventually('pod Running on its hollow node', async () => {
      const pod = await core.readNamespacedPod({ name: 'bind-me', namespace: 'default' });
      return pod.status?.phase === 'Running' ? pod : undefined;
    });
    expect(running.spec!.nodeName).toBe('hollow-1');
    expect(running.status!.podIP).toMatch(/^10\.64\.1\.\d+$/);
    expect(running.status!.conditions!.map((c) => `${c.type}=${c.status}`)).toEqual([
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'Ready=True',
      'ContainersReady=True',
      'PodScheduled=True',
    ]);
  });

  it('lets the default-scheduler place pods, and explains what it cannot place', async () => {
    double.cordon('hollow-0');
    const fits = await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'scheduled' },
        spec: { containers: [{ name: 'c', image: 'busybox:local', resources: { requests: { cpu: '1' } } }] },
      },
    });
    expect(fits.spec?.nodeName).toBeUndefined();
    const placed = await eventually(
      'scheduled',
      async () => (await core.readNamespacedPod({ name: 'scheduled', namespace: 'default' })).spec?.nodeName,
    );
    expect(placed).not.toBe('hollow-0');
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'too-big' },
        spec: { containers: [{ name: 'c', image: 'busybox:local', resources: { requests: { cpu: '64' } } }] },
      },
    });
    const condition = await eventually('unschedulable', async () =>
      (await core.readNamespacedPod({ name: 'too-big', namespace: 'default' })).status?.conditions?.find(
        (c) => c.type === 'PodScheduled' && c.status === 'False',
      ),
    );
    expect(condition).toMatchObject({
      reason: 'Unschedulable',
      message:
        '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    });
    double.cordon('hollow-0', false);
  });
});

describe('Kubernetes double: as strict as the API server on what clients write', () => {
  const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = (name: string, spec: Record<string, unknown>, resourceVersion?: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) },
    spec,
  });
  const micro = (text: string) =>
    `Lease in version "v1" cannot be handled as a Lease: parsing time "${text}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".835Z" as ".000000"`;

  it('refuses a MicroTime with three fractional digits, on create and on update, with the decode error', async () => {
    const created = await raw(double, leases, { method: 'POST', body: lease('strict-micro', { renewTime: '2026-12-05T22:56:58.835Z' }) });
    expect(created.status).toBe(400);
    expect(created.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: micro('2026-12-05T22:56:58.835Z'),
      reason: 'BadRequest',
      code: 400,
    });
    const good = await raw(double, leases, {
      method: 'POST',
      body: lease('strict-micro', {
        holderIdentity: 'a',
        renewTime: '2026-12-05T23:56:58.835123+01:00',
        acquireTime: '2026-12-05T22:56:58.000001Z',
      }),
    });
    expect(good.status).toBe(201);
    const stored = good.json<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }>();
    expect(stored.spec).toEqual({
      holderIdentity: 'a',
      renewTime: '2026-12-05T22:56:58.835123Z',
      acquireTime: '2026-12-05T22:56:58.000001Z',
    });
    const update = await raw(double, `${leases}/strict-micro`, {
      method: 'PUT',
      body: lease('strict-micro', { renewTime: '2026-12-05T22:57:58.835Z' }, stored.metadata.resourceVersion),
    });
    expect(update.json()).toMatchObject({ code: 400, reason: 'BadRequest', message: micro('2026-12-05T22:57:58.835Z') });
    const renewed = await raw(double, `${leases}/strict-micro`, {
      method: 'PUT',
      body: lease('strict-micro', { holderIdentity: 'a', renewTime: '2026-12-05T22:57:58.835123Z' }, stored.metadata.resourceVersion),
    });
    expect(renewed.status).toBe(200);
    expect(renewed.json<{ spec: { renewTime: string } }>().spec.renewTime).toBe('2026-12-05T22:57:58.835123Z');
    // metav1.Time takes a fraction the layout lacks, and "" is no time at all
    const pod = { metadata: { name: 'strict-time', deletionTimestamp: '' }, spec: { containers: [{ name: 'c', image: 'busybox:local' }] } };
    expect((await raw(double, '/api/v1/namespaces/default/pods', { method: 'POST', body: pod })).json()).toMatchObject({
      code: 400,
      message: 'Pod in version "v1" cannot be handled as a Pod: parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"',
    });
  });

  it('wants the resourceVersion on a PUT of an existing Lease (AllowUnconditionalUpdate false), not on other kinds', async () => {
    const put = (name: string, resourceVersion?: string) =>
      raw(double, `${leases}/${name}`, {
        method: 'PUT',
        body: lease(name, { holderIdentity: 'b', leaseDurationSeconds: 15 }, resourceVersion),
      });
    const created = await put('strict-rv');
    expect(created.status).toBe(201);
    const unconditional = await put('strict-rv');
    expect(unconditional.status).toBe(422);
    expect(unconditional.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'leases.coordination.k8s.io "strict-rv" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      reason: 'Invalid',
      details: {
        name: 'strict-rv',
        group: 'coordination.k8s.io',
        kind: 'leases',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ],
      },
      code: 422,
    });
    const resourceVersion = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    expect((await put('strict-rv', resourceVersion)).status).toBe(200);
    // a patch applies to the current object, resourceVersion and all
    const patched = await raw(double, `${leases}/strict-rv`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { spec: { holderIdentity: 'c' } },
    });
    expect(patched.json<{ spec: { holderIdentity: string } }>().spec.holderIdentity).toBe('c');
    // ConfigMaps are updated unconditionally
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'strict-unconditional' } } });
    const configMap = await raw(double, '/api/v1/namespaces/default/configmaps/strict-unconditional', {
      method: 'PUT',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict-unconditional' }, data: { a: '1' } },
    });
    expect(configMap.status).toBe(200);
  });

  it('names Services with DNS-1035 labels, and takes a headless Service without ports', async () => {
    const dns1035 =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    for (const name of ['Web', '1web']) {
      const refused = await raw(double, '/api/v1/namespaces/default/services', {
        method: 'POST',
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } },
      });
      expect(refused.status).toBe(422);
      expect(refused.json()).toMatchObject({
        reason: 'Invalid',
        message: `Service "${name}" is invalid: metadata.name: Invalid value: "${name}": ${dns1035}`,
        details: {
          name,
          kind: 'Service',
          causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "${name}": ${dns1035}` }],
        },
      });
    }
    const headless = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'strict-headless' }, spec: { clusterIP: 'None', selector: { app: 'x' }, publishNotReadyAddresses: true } },
    });
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], type: 'ClusterIP', publishNotReadyAddresses: true });
    const nodePort = await raw(double, '/api/v1/namespaces/default/services', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'strict-nodeport' }, spec: { type: 'NodePort', clusterIP: 'None' } },
    });
    expect(nodePort.json()).toMatchObject({
      code: 422,
      message: `Service "strict-nodeport" is invalid: [spec.ports: Required value, spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services]`,
    });
  });
});

describe('Kubernetes double: lists and watches', () => {
  it('lists in pages with continue tokens, with label and field selectors', async () => {
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `page-${i}`, labels: { page: String(i % 2) } } },
      });
    const first = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'page', limit: 2 });
    expect(first.items.map((i) => i.metadata!.name)).toEqual(['page-0', 'page-1']);
    const rest = await core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'page',
      limit: 10,
      _continue: first.metadata!._continue,
    });
    expect(rest.items.map((i) => i.metadata!.name)).toEqual(['page-2', 'page-3', 'page-4']);
    expect(rest.metadata!.resourceVersion).toBe(first.metadata!.resourceVersion);
    expect(
      (await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'page in (1)' })).items.map((i) => i.metadata!.name),
    ).toEqual(['page-1', 'page-3']);
    expect((await core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'metadata.name=page-4' })).items).toHaveLength(1);
    const pods = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=hollow-1,status.phase=Running' });
    expect(pods.items.map((p) => p.metadata!.name)).toContain('bind-me');
    expect(await failure(core.listNamespacedPod({ namespace: 'default', fieldSelector: 'spec.bogus=1' }))).toMatchObject({
      code: 400,
      message: 'field label not supported: spec.bogus',
    });
    const token = first.metadata!._continue!;
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'page-5' } } });
    double.compact('configmaps');
    expect(
      await failure(core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'page', limit: 10, _continue: token })),
    ).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('watches from a resourceVersion with bookmarks, and answers 410 Expired once it is compacted', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    const watch = await rawWatch(
      double,
      `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${list.metadata!.resourceVersion}`,
    );
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'watched' } } });
    await core.patchNamespacedConfigMap({ name: 'watched', namespace: 'default', body: [{ op: 'add', path: '/data', value: { k: 'v' } }] });
    await core.deleteNamespacedConfigMap({ name: 'watched', namespace: 'default' });
    await eventually('a bookmark after the delete', () => watch.events.some((e, i) => e.type === 'BOOKMARK' && i > 2));
    const changes = watch.events.filter((e) => e.type !== 'BOOKMARK');
    expect(changes.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
    const versions = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(watch.events.find((e) => e.type === 'BOOKMARK')!.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: expect.any(String) },
    });
    watch.close();
    double.compact('configmaps');
    const expired = await rawWatch(
      double,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata!.resourceVersion}`,
    );
    await expired.ended;
    expect(expired.events).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({
          kind: 'Status',
          code: 410,
          reason: 'Expired',
          message: expect.stringMatching(/^too old resource version: \d+ \(\d+\)$/),
        }),
      },
    ]);
  });

  it('keeps a client-node informer current across dropped watches and 410 re-lists', async () => {
    const seen = new Set<string>();
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    informer.on('add', (object) => seen.add(object.metadata!.name!));
    informer.on('error', () => setTimeout(() => void informer.start(), 100));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'informed-1' } } });
    await eventually('first add', () => seen.has('informed-1'));
    expect(double.dropWatches()).toBeGreaterThan(0);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'informed-2' } } });
    await eventually('add after a dropped watch', () => seen.has('informed-2'));
    double.compact();
    double.endWatches();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'informed-3' } } });
    await eventually('add after a 410 re-list', () => seen.has('informed-3'));
    expect(informer.list().map((o) => o.metadata!.name)).toEqual(expect.arrayContaining(['informed-1', 'informed-2', 'informed-3']));
    await informer.stop();
  });

  it('goes away and comes back on the same address with its state (disconnect/reconnect)', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before-outage' } } });
    await double.disconnect();
    const refused = await core.readNamespacedConfigMap({ name: 'before-outage', namespace: 'default' }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(String(refused?.message ?? refused)).toMatch(/ECONNREFUSED|fetch failed/);
    double.registry.create(RESOURCES_CONFIGMAPS, 'default', { metadata: { name: 'during-outage' } });
    await double.reconnect();
    const names = (await core.listNamespacedConfigMap({ namespace: 'default' })).items.map((item) => item.metadata!.name);
    expect(names).toEqual(expect.arrayContaining(['before-outage', 'during-outage']));
  });

  it('sends selector changes as ADDED/DELETED and ends a watch after timeoutSeconds', async () => {
    const watch = await rawWatch(double, '/api/v1/namespaces/default/configmaps?watch=true&labelSelector=color%3Dblue&timeoutSeconds=2');
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'chameleon', labels: { color: 'red' } } } });
    await core.patchNamespacedConfigMap({
      name: 'chameleon',
      namespace: 'default',
      body: [{ op: 'replace', path: '/metadata/labels/color', value: 'blue' }],
    });
    await core.patchNamespacedConfigMap({
      name: 'chameleon',
      namespace: 'default',
      body: [{ op: 'replace', path: '/metadata/labels/color', value: 'green' }],
    });
    const started = Date.now();
    await watch.ended;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(watch.events.map((e) => `${e.type} ${e.object.metadata.labels?.color}`)).toEqual(['ADDED blue', 'DELETED blue']);
  });
});

describe('Kubernetes double: deletion and nodes', () => {
  it('deletes pods gracefully on a node, at once when unscheduled, and keeps finalized objects until their finalizers go', async () => {
    const deleted = await core.deleteNamespacedPod({ name: 'bind-me', namespace: 'default', gracePeriodSeconds: 5 });
    expect(deleted.metadata?.deletionTimestamp).toBeDefined();
    expect(deleted.metadata?.deletionGracePeriodSeconds).toBe(5);
    await eventually('pod gone after its hollow kubelet stopped it', async () =>
      failure(core.readNamespacedPod({ name: 'bind-me', namespace: 'default' })).then((s) => s.code === 404),
    );
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'never-bound' }, spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox:local' }] } },
    });
    await core.deleteNamespacedPod({ name: 'never-bound', namespace: 'default' });
    expect((await failure(core.readNamespacedPod({ name: 'never-bound', namespace: 'default' }))).code).toBe(404);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await core.deleteNamespacedConfigMap({ name: 'held', namespace: 'default' });
    const held = await core.readNamespacedConfigMap({ name: 'held', namespace: 'default' });
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    await core.patchNamespacedConfigMap({ name: 'held', namespace: 'default', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    expect((await failure(core.readNamespacedConfigMap({ name: 'held', namespace: 'default' }))).code).toBe(404);
  });

  it('deletes a namespace with its content, then the namespace itself', async () => {
    await core.createNamespace({ body: { metadata: { name: 'short-lived' } } });
    await core.createNamespacedConfigMap({ namespace: 'short-lived', body: { metadata: { name: 'inside' } } });
    await core.createNamespacedPod({
      namespace: 'short-lived',
      body: { metadata: { name: 'runner' }, spec: { nodeName: 'hollow-1', containers: [{ name: 'c', image: 'busybox:local' }] } },
    });
    await core.deleteNamespace({ name: 'short-lived' });
    expect((await core.readNamespace({ name: 'short-lived' })).status!.phase).toBe('Terminating');
    expect(await failure(core.createNamespacedConfigMap({ namespace: 'short-lived', body: { metadata: { name: 'late' } } }))).toMatchObject(
      {
        code: 403,
        message: 'configmaps "late" is forbidden: unable to create new content in namespace short-lived because it is being terminated',
      },
    );
    await eventually('namespace gone', async () => (await failure(core.readNamespace({ name: 'short-lived' }))).code === 404);
    expect((await core.listPodForAllNamespaces({ fieldSelector: 'metadata.namespace=short-lived' })).items).toEqual([]);
  });

  it('turns a node whose kubelet stops Unknown, taints it unreachable, and back to Ready', async () => {
    double.stopKubelet('hollow-2');
    const unknown = await eventually('Unknown', async () => {
      const node = await core.readNode({ name: 'hollow-2' });
      return node.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'Unknown') ? node : undefined;
    });
    expect(unknown.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    });
    await eventually(
      'unreachable taints',
      async () =>
        (await core.readNode({ name: 'hollow-2' })).spec?.taints?.filter((t) => t.key === 'node.kubernetes.io/unreachable').length === 2,
    );
    double.startKubelet('hollow-2');
    await eventually('Ready again, taints gone', async () => {
      const node = await core.readNode({ name: 'hollow-2' });
      return node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && !(node.spec?.taints ?? []).length;
    });
    expect((await raw(double, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/hollow-2')).json()).toMatchObject({
      spec: { holderIdentity: 'hollow-2', leaseDurationSeconds: 40 },
    });
  });

  it('holds 1,000 hollow nodes and lists them in pages', async () => {
    const large = await startKubernetesDouble({ hollowNodes: { count: 1000, prefix: 'many-', capacity: { cpu: '4', memory: '8Gi' } } });
    try {
      const config = new k8s.KubeConfig();
      config.loadFromFile(large.kubeconfig);
      const client = config.makeApiClient(k8s.CoreV1Api);
      let started = Date.now();
      const rawList = await raw(large, '/api/v1/nodes');
      const rawMs = Date.now() - started;
      expect(rawList.json<{ items: unknown[] }>().items).toHaveLength(1000);
      started = Date.now();
      const nodes = await client.listNode({ labelSelector: 'kubernetes.io/hostname' });
      const clientMs = Date.now() - started;
      expect(nodes.items.length).toBe(1000);
      expect(nodes.items.find((n) => n.metadata!.name === 'many-500')!.status!.allocatable).toMatchObject({
        cpu: '4',
        memory: '8092Mi',
        pods: '110',
      });
      const page = await client.listNode({ limit: 400 });
      expect(page.items).toHaveLength(400);
      expect(page.metadata!.remainingItemCount).toBe(600);
      await client.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name: 'on-many' }, spec: { nodeName: 'many-999', containers: [{ name: 'c', image: 'busybox:local' }] } },
      });
      await eventually(
        'Running on a hollow node',
        async () => (await client.readNamespacedPod({ name: 'on-many', namespace: 'default' })).status?.phase === 'Running',
      );
      console.log(
        `[k8s-double] list of 1,000 nodes: ${rawMs} ms raw (${Math.round(rawList.text.length / 1024)} KiB), ${clientMs} ms through client-node`,
      );
    } finally {
      await large.stop();
    }
  });
});
