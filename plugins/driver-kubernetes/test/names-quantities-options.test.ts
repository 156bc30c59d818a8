import { describe, expect, it } from 'vitest';
import { parseKubernetesOptions } from '../src/options.js';
import { generatedName, podNameFor } from '../src/pod-names.js';
import { cpuQuantity, parseQuantity } from '../src/quantity.js';

describe('pod names', () => {
  it('keeps a name Kubernetes takes and maps any other to a DNS label with a hash of the docker name', () => {
    expect(podNameFor('web')).toBe('web');
    expect(podNameFor('web_1')).toMatch(/^web-1-[0-9a-f]{8}$/);
    expect(podNameFor('Web_1')).not.toBe(podNameFor('web_1'));
    expect(podNameFor('a'.repeat(80)).length).toBeLessThanOrEqual(63);
    expect(podNameFor('___')).toMatch(/^c-[0-9a-f]{8}$/);
  });

  it('generates docker-style names that are free', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const name = generatedName((candidate) => taken.has(candidate));
      expect(name).toMatch(/^[a-z]+_[a-z]+\d*$/);
      expect(taken.has(name)).toBe(false);
      taken.add(name);
    }
  });
});

describe('quantities', () => {
  it.each([
    ['2', 2],
    ['500m', 0.5],
    ['16Gi', 16 * 2 ** 30],
    ['1024Ki', 2 ** 20],
    ['1e9', 1e9],
    ['128M', 128e6],
  ])('%s', (text, value) => expect(parseQuantity(text)).toBe(value));

  it('is NaN for what is not a quantity', () => expect(parseQuantity('two')).toBeNaN());
  it('writes CPUs as Kubernetes does', () => {
    expect(cpuQuantity(2)).toBe('2');
    expect(cpuQuantity(0.25)).toBe('250m');
  });
});

describe('driver options', () => {
  it('defaults to the default namespace and emptyDir volumes, and reads the kubeconfig from the discovery argument', () => {
    expect(parseKubernetesOptions({}, '')).toEqual({ namespace: 'default', namedVolumes: 'emptyDir', volumeSize: '1Gi' });
    expect(parseKubernetesOptions({}, 'k8s://').kubeconfig).toBeUndefined();
    expect(parseKubernetesOptions({ 'kubernetes.volumes': 'pvc' }, '').namedVolumes).toBe('persistentVolumeClaim');
  });

  it('says which option is wrong and how to fix it', () => {
    expect(() => parseKubernetesOptions({ 'kubernetes.namespace': 'Bad_NS' }, '')).toThrow(
      '--cluster-opt kubernetes.namespace=Bad_NS: a namespace is a DNS label',
    );
    expect(() => parseKubernetesOptions({ 'kubernetes.volumes': 'nfs' }, '')).toThrow('use emptyDir or pvc');
    expect(() => parseKubernetesOptions({ 'kubernetes.kubeconfig': '/no/such/file' }, '')).toThrow(
      '--cluster-opt kubernetes.kubeconfig=/no/such/file: no such file',
    );
    expect(() => parseKubernetesOptions({}, 'zk://127.0.0.1/x')).toThrow('the kubernetes driver finds its nodes through the API server');
  });
});

describe('k8s:// as a discovery', () => {
  it('is only for the kubernetes driver, and says how to use it', async () => {
    const { KubernetesDiscovery } = await import('../src/lease-discovery.js');
    const config = { cluster: { driver: 'swarm', discovery: 'k8s://', options: {} } } as unknown as ConstructorParameters<
      typeof KubernetesDiscovery
    >[0];
    expect(() => new KubernetesDiscovery(config).open()).toThrow(
      'k8s:// finds nodes for the kubernetes driver only (this deployment uses "swarm"): add -c kubernetes',
    );
  });
});
