import type { Image, ImageManagement, Node } from '@swarm/plugin-sdk';
import { KubernetesErrors } from './errors.js';

/** `docker image inspect` from what a node's status says of an image (names, digests, size). */
export function imageInspect(image: Image): Record<string, unknown> {
  return {
    Id: image.id,
    RepoTags: [...image.repoTags],
    RepoDigests: [...image.repoDigests],
    Parent: '',
    Comment: '',
    Created: '0001-01-01T00:00:00Z',
    DockerVersion: '',
    Author: '',
    Config: { Env: [], Cmd: null, Entrypoint: null, Volumes: null, WorkingDir: '', Labels: {} },
    Architecture: image.node.labels()['kubernetes.io/arch'] ?? 'amd64',
    Os: image.node.labels()['kubernetes.io/os'] ?? 'linux',
    Size: image.summary.Size,
    RootFS: { Type: 'layers', Layers: [] },
    Metadata: { LastTagTime: '0001-01-01T00:00:00Z' },
  };
}

const NOT_HERE = 'Kubernetes nodes keep their images themselves';

/**
 * Image management on Kubernetes: the kubelet pulls an image when a pod needing it starts (the
 * pod's imagePullPolicy), so `docker pull` (and compose's pull before `up`) succeeds with a line
 * saying so, and a missing or private image fails at `docker start` with the kubelet's reason.
 * The rest (import, load, tag, rmi) has no API: refused with 501.
 */
export function deferredPulls(nodes: () => readonly Node[]): ImageManagement {
  return {
    pull: async (reference, _auth, onProgress) => {
      const node = nodes()[0];
      if (node) onProgress(node, { status: `${reference}: the node pulls it when a container needs it (imagePullPolicy IfNotPresent)` });
    },
    importFrom: () => Promise.reject(KubernetesErrors.notServed({ what: 'docker import', why: NOT_HERE })),
    load: () => Promise.reject(KubernetesErrors.notServed({ what: 'docker load', why: NOT_HERE })),
    tag: () => Promise.reject(KubernetesErrors.notServed({ what: 'docker tag', why: NOT_HERE })),
    remove: () =>
      Promise.reject(
        KubernetesErrors.notServed({ what: 'docker rmi', why: `${NOT_HERE} (the kubelet's image garbage collection removes unused ones)` }),
      ),
  };
}
