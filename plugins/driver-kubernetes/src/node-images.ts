import type { Image, ImagePull, Node } from '@swarm/plugin-sdk';

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

/**
 * `docker pull` on Kubernetes: the kubelet pulls an image when a pod needing it starts (the pod's
 * imagePullPolicy), so a pull (and compose's pull before `up`) succeeds with a line saying so, and
 * a missing or private image fails at `docker start` with the kubelet's reason. Import, load, tag
 * and rmi have no Kubernetes API: the driver does not offer them, and the API front answers 501.
 */
export function deferredPulls(nodes: () => readonly Node[]): ImagePull {
  return {
    pull: async (reference, _auth, onProgress) => {
      const node = nodes()[0];
      if (node) onProgress(node, { status: `${reference}: the node pulls it when a container needs it (imagePullPolicy IfNotPresent)` });
    },
  };
}
