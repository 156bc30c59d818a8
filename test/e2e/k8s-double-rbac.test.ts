import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startKubernetesDouble, type KubernetesDouble } from '../k8s-double/index.js';
import { kubectl, raw } from '../k8s-double/testing.js';

// The double's RBAC: Roles, ClusterRoles and their bindings as rbac.authorization.k8s.io/v1
// objects, validated as pkg/apis/rbac/validation does, and the RBAC authorizer's decisions for
// service accounts (plugin/pkg/auth/authorizer/rbac/rbac.go), with hollow nodes only.
let double: KubernetesDouble;
let token: string;
const NS = 'rbac';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SA_USER = `system:serviceaccount:${NS}:robot`;

const as = (path: string, method = 'GET', body?: unknown) => raw(double, path, { token, method, ...(body === undefined ? {} : { body }) });
const admin = (path: string, method = 'GET', body?: unknown) => raw(double, path, { method, ...(body === undefined ? {} : { body }) });
const forbidden = (what: string) => `User "${SA_USER}" cannot ${what}`;

beforeAll(async () => {
  double = await startKubernetesDouble({ hollowNodes: 1 });
  expect((await admin('/api/v1/namespaces', 'POST', { metadata: { name: NS } })).status).toBe(201);
  expect((await admin(`/api/v1/namespaces/${NS}/serviceaccounts`, 'POST', { metadata: { name: 'robot' } })).status).toBe(201);
  token = double.serviceAccountToken(NS, 'robot');
  const role = {
    metadata: { name: 'pod-reader' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], resourceNames: ['allowed'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'], verbs: ['list'] },
    ],
  };
  expect((await admin(`${RBAC}/namespaces/${NS}/roles`, 'POST', role)).status).toBe(201);
  const binding = {
    metadata: { name: 'robot-reads-pods' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
  };
  expect((await admin(`${RBAC}/namespaces/${NS}/rolebindings`, 'POST', binding)).status).toBe(201);
});

afterAll(async () => {
  await double?.stop();
});

describe('RBAC objects', () => {
  it('are served and discovered, with the bootstrap policy a cluster starts with', async () => {
    const group = (await admin(RBAC)).json<{ resources: Array<{ name: string; namespaced: boolean }> }>();
    expect(group.resources.map((r) => `${r.name}:${r.namespaced}`).sort()).toEqual([
      'clusterrolebindings:false',
      'clusterroles:false',
      'rolebindings:true',
      'roles:true',
    ]);
    const roles = (await admin(`${RBAC}/clusterroles`)).json<{ items: Array<{ metadata: { name: string } }> }>();
    expect(roles.items.map((r) => r.metadata.name)).toEqual(
      expect.arrayContaining(['cluster-admin', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']),
    );
    const table = await kubectl(double, ['get', 'rolebindings', '-n', NS, '-o', 'wide']);
    expect(table.stdout).toMatch(/robot-reads-pods\s+Role\/pod-reader\s+\S+\s+\S*\s*rbac:robot|robot-reads-pods\s+Role\/pod-reader/);
  });

  it('default the API group of User and Group subjects and of the roleRef (pkg/apis/rbac/v1/defaults.go)', async () => {
    const created = await admin(`${RBAC}/clusterrolebindings`, 'POST', {
      metadata: { name: 'defaults' },
      roleRef: { kind: 'ClusterRole', name: 'nothing' },
      subjects: [
        { kind: 'User', name: 'u' },
        { kind: 'ServiceAccount', name: 's', namespace: NS },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const body = created.json<{ roleRef: { apiGroup: string }; subjects: Array<{ apiGroup?: string }> }>();
    expect(body.roleRef.apiGroup).toBe('rbac.authorization.k8s.io');
    expect(body.subjects.map((s) => s.apiGroup)).toEqual(['rbac.authorization.k8s.io', undefined]);
  });

  it('are validated as pkg/apis/rbac/validation/validation.go does', async () => {
    const role = await admin(`${RBAC}/namespaces/${NS}/roles`, 'POST', {
      metadata: { name: 'bad' },
      rules: [{ verbs: [], nonResourceURLs: ['/metrics'] }, { verbs: ['get'] }],
    });
    expect(role.status).toBe(422);
    expect(role.json().message).toBe(
      'Role.rbac.authorization.k8s.io "bad" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, ' +
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply to non-resource URLs, ' +
        'rules[1].apiGroups: Required value: resource rules must supply at least one api group, ' +
        'rules[1].resources: Required value: resource rules must supply at least one resource]',
    );
    const named = await admin(`${RBAC}/clusterroles`, 'POST', { metadata: { name: 'system:ok' }, rules: [] });
    expect(named.status).toBe(201);
    const slash = await admin(`${RBAC}/clusterroles`, 'POST', { metadata: { name: 'a%b' } });
    expect(slash.json().message).toContain(`metadata.name: Invalid value: "a%b": may not contain '%'`);
    const binding = await admin(`${RBAC}/clusterrolebindings`, 'POST', {
      metadata: { name: 'bad' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
      subjects: [
        { kind: 'ServiceAccount', name: 's' },
        { kind: 'Robot', name: 'r' },
        { kind: 'User', name: 'u', apiGroup: 'v1' },
      ],
    });
    expect(binding.json().message).toBe(
      'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", ' +
        'subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group", ' +
        'subjects[2].apiGroup: Unsupported value: "v1": supported values: "rbac.authorization.k8s.io"]',
    );
    const changed = await admin(`${RBAC}/namespaces/${NS}/rolebindings/robot-reads-pods`, 'PATCH', { roleRef: { name: 'other' } });
    expect(changed.status).toBe(415);
    const merge = await raw(double, `${RBAC}/namespaces/${NS}/rolebindings/robot-reads-pods`, {
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { roleRef: { name: 'other' } },
    });
    expect(merge.status).toBe(422);
    expect(merge.json().message).toContain(
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
    );
  });
});

describe('the RBAC authorizer, for service accounts', () => {
  it('allows what a Role grants through a RoleBinding, and nothing else', async () => {
    expect((await as(`/api/v1/namespaces/${NS}/pods`)).status).toBe(200);
    expect((await as(`/api/v1/namespaces/${NS}/pods?watch=1&timeoutSeconds=1`)).status).toBe(200);
    // get is granted for one name: the other name is refused before the API server looks it up
    expect((await as(`/api/v1/namespaces/${NS}/pods/allowed`)).status).toBe(404);
    const other = await as(`/api/v1/namespaces/${NS}/pods/other`);
    expect(other.status).toBe(403);
    expect(other.json()).toMatchObject({
      reason: 'Forbidden',
      message: `pods "other" is forbidden: ${forbidden(`get resource "pods" in API group "" in the namespace "${NS}"`)}`,
      details: { name: 'other', kind: 'pods' },
    });
    const created = await as(`/api/v1/namespaces/${NS}/pods`, 'POST', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect(created.json().message).toBe(
      `pods is forbidden: ${forbidden(`create resource "pods" in API group "" in the namespace "${NS}"`)}`,
    );
    expect((await as(`/api/v1/namespaces/default/pods`)).json().message).toBe(
      `pods is forbidden: ${forbidden('list resource "pods" in API group "" in the namespace "default"')}`,
    );
    expect((await as('/api/v1/nodes')).json().message).toBe(
      `nodes is forbidden: ${forbidden('list resource "nodes" in API group "" at the cluster scope')}`,
    );
  });

  it('matches subresources as resource/subresource, and */subresource', async () => {
    expect((await as(`/api/v1/namespaces/${NS}/pods/any/log`)).status).toBe(404);
    const status = await as(`/api/v1/namespaces/${NS}/pods/allowed/status`);
    expect(status.json().message).toBe(
      `pods "allowed" is forbidden: ${forbidden(`get resource "pods/status" in API group "" in the namespace "${NS}"`)}`,
    );
    const lift = await grantCluster('status-reader', [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] }]);
    expect((await as(`/api/v1/namespaces/${NS}/pods/allowed/status`)).status).toBe(404);
    expect((await as(`/api/v1/namespaces/${NS}/pods/allowed`)).status).toBe(404);
    expect((await as(`/api/v1/namespaces/${NS}/pods/other`)).status).toBe(403);
    await lift();
    expect((await as(`/api/v1/namespaces/${NS}/pods/allowed/status`)).status).toBe(403);
  });

  it('authorizes a list by one name (fieldSelector metadata.name) against resourceNames', async () => {
    expect((await as(`/api/v1/namespaces/${NS}/configmaps?fieldSelector=metadata.name%3Done`)).status).toBe(200);
    expect((await as(`/api/v1/namespaces/${NS}/configmaps?fieldSelector=metadata.name%3Dtwo`)).status).toBe(403);
    expect((await as(`/api/v1/namespaces/${NS}/configmaps`)).status).toBe(403);
  });

  it('grants a ClusterRole bound by a RoleBinding in that namespace only, and by a ClusterRoleBinding everywhere', async () => {
    await admin(`${RBAC}/clusterroles`, 'POST', {
      metadata: { name: 'secret-lister' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }],
    });
    const binding = await admin(`${RBAC}/namespaces/${NS}/rolebindings`, 'POST', {
      metadata: { name: 'secrets' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'secret-lister' },
      subjects: [{ kind: 'Group', name: `system:serviceaccounts:${NS}` }],
    });
    expect(binding.status).toBe(201);
    expect((await as(`/api/v1/namespaces/${NS}/secrets`)).status).toBe(200);
    expect((await as('/api/v1/namespaces/default/secrets')).status).toBe(403);
    expect((await as('/api/v1/secrets')).status).toBe(403);
    const lift = await grantCluster('secret-lister-everywhere', undefined, 'secret-lister');
    expect((await as('/api/v1/namespaces/default/secrets')).status).toBe(200);
    expect((await as('/api/v1/secrets')).status).toBe(200);
    await lift();
    expect((await admin(`${RBAC}/namespaces/${NS}/rolebindings/secrets`, 'DELETE')).status).toBe(200);
    expect((await as(`/api/v1/namespaces/${NS}/secrets`)).status).toBe(403);
  });

  it('takes a WebSocket exec as get (the GET) and create (1.35), and non-resource URLs from the bootstrap policy', async () => {
    expect((await as('/apis')).status).toBe(200);
    expect((await as('/version')).status).toBe(200);
    const metrics = await as('/metrics');
    expect(metrics.status).toBe(403);
    expect(metrics.json().message).toBe(`forbidden: ${forbidden('get path "/metrics"')}`);
    const review = await as('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'POST', {
      spec: { resourceAttributes: { namespace: NS, verb: 'list', resource: 'pods' } },
    });
    expect(review.json().status).toEqual({
      allowed: true,
      reason: `RBAC: allowed by RoleBinding "robot-reads-pods/${NS}" of Role "pod-reader" to ServiceAccount "robot/${NS}"`,
    });
  });

  it('needs get and create on pods/exec for a WebSocket exec', async () => {
    const upgrade = (pod: string) =>
      new Promise<number>((resolve) => {
        const url = `${double.url.replace('https', 'wss')}/api/v1/namespaces/${NS}/pods/${pod}/exec?command=true&stdout=true`;
        const socket = new WebSocket(url, ['v5.channel.k8s.io'], { headers: { Authorization: `Bearer ${token}` }, ca: double.ca });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('error', () => resolve(-1));
      });
    // refused (403) before the missing pod is looked up (404)
    expect(await upgrade('missing')).toBe(403);
    const onlyCreate = await grantCluster('exec-create', [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }]);
    expect(await upgrade('missing')).toBe(403);
    const andGet = await grantCluster('exec-get', [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['get'] }]);
    expect(await upgrade('missing')).toBe(404);
    await onlyCreate();
    expect(await upgrade('missing')).toBe(403);
    await andGet();
  });

  it('matches nonResourceURLs exactly or by a trailing *', async () => {
    expect((await as('/metrics')).status).toBe(403);
    const lift = await grantCluster('metrics-viewer', [{ nonResourceURLs: ['/metr*'], verbs: ['get'] }]);
    expect((await as('/metrics')).status).not.toBe(403);
    expect((await as('/logs')).status).toBe(403);
    await lift();
  });

  it('leaves other users to the deny rules', async () => {
    expect((await raw(double, `/api/v1/namespaces/${NS}/pods`, { token: double.token })).status).toBe(200);
    expect((await raw(double, '/api/v1/nodes', { token: double.token })).status).toBe(200);
  });
});

/** Binds a new ClusterRole (or an existing one) to the service account cluster-wide; returns the undo. */
async function grantCluster(name: string, rules: unknown[] | undefined, existing?: string): Promise<() => Promise<void>> {
  if (rules) expect((await admin(`${RBAC}/clusterroles`, 'POST', { metadata: { name }, rules })).status).toBe(201);
  const binding = await admin(`${RBAC}/clusterrolebindings`, 'POST', {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: existing ?? name },
    subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: NS }],
  });
  expect(binding.status, binding.text).toBe(201);
  return async () => {
    expect((await admin(`${RBAC}/clusterrolebindings/${name}`, 'DELETE')).status).toBe(200);
  };
}
