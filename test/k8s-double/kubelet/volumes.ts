// Pod volumes on the node, laid out as the kubelet lays them out (pods/<uid>/volumes/<plugin>/<name>):
// emptyDir directories, hostPath with its type checks, files written from ConfigMaps, Secrets,
// the downward API and the projected service account token. Containers get them as bind mounts.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Authenticator } from '../api/auth.js';
import type { KObject, Store } from '../store/store.js';
import { resourceValue } from './env.js';
import type { Loose } from '../model/loose.js';

/** A volume that cannot be set up (FailedMount): the pod waits in ContainerCreating. */
export class VolumeError extends Error {}

export interface PreparedVolume {
  hostPath: string;
  readOnly: boolean;
}

function writeFiles(dir: string, files: Array<{ path: string; content: Buffer | string; mode?: number }>, defaultMode: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    const target = join(dir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    chmodSync(target, file.mode ?? defaultMode);
  }
}

function keyedFiles(
  data: Record<string, string>,
  items: Loose[] | undefined,
  decode: (value: string) => Buffer | string,
  what: string,
  optional: boolean,
) {
  if (!items || items.length === 0) return Object.entries(data).map(([key, value]) => ({ path: key, content: decode(value) }));
  return items.flatMap((item) => {
    if (!(item.key in data)) {
      if (optional) return [];
      throw new VolumeError(`configmap references non-existent config key: ${item.key}`.replace('configmap', what));
    }
    return [{ path: item.path as string, content: decode(data[item.key]!), mode: item.mode as number | undefined }];
  });
}

export interface PodVolumesDeps {
  readonly root: string;
  readonly store: Store;
  readonly authenticator: Authenticator;
  readonly allocatable: () => Record<string, string>;
}

/** One pod's volumes (a pod worker owns one). */
export class PodVolumes {
  private readonly root: string;
  private readonly store: Store;
  private readonly authenticator: Authenticator;
  private readonly allocatable: () => Record<string, string>;

  private podToken: string | undefined;

  constructor({ root, store, authenticator, allocatable }: PodVolumesDeps) {
    this.root = root;
    this.store = store;
    this.authenticator = authenticator;
    this.allocatable = allocatable;
  }

  private podDir(pod: KObject): string {
    return join(this.root, 'pods', pod.metadata.uid!);
  }

  /** Sets up every volume of the pod (again: ConfigMap and Secret content is refreshed). */
  prepare(pod: KObject, hostIP: string, podIP: string | undefined): Map<string, PreparedVolume> {
    const prepared = new Map<string, PreparedVolume>();
    const namespace = pod.metadata.namespace!;
    for (const volume of ((pod.spec as Loose).volumes ?? []) as Loose[]) {
      const name = volume.name as string;
      try {
        prepared.set(name, this.prepareOne(pod, volume, namespace, hostIP, podIP));
      } catch (error) {
        if (error instanceof VolumeError) throw new VolumeError(`MountVolume.SetUp failed for volume "${name}" : ${error.message}`);
        throw error;
      }
    }
    return prepared;
  }

  private prepareOne(pod: KObject, volume: Loose, namespace: string, hostIP: string, podIP: string | undefined): PreparedVolume {
    const dir = (plugin: string) => join(this.podDir(pod), 'volumes', plugin, volume.name);
    if (volume.emptyDir) {
      const path = dir('kubernetes.io~empty-dir');
      if (!existsSync(path)) {
        mkdirSync(path, { recursive: true });
        chmodSync(path, 0o777);
      }
      return { hostPath: path, readOnly: false };
    }
    if (volume.hostPath) return { hostPath: this.hostPath(volume.hostPath.path, volume.hostPath.type ?? ''), readOnly: false };
    if (volume.configMap) {
      const source = volume.configMap;
      const map = this.store.peek('configmaps', `${namespace}/${source.name}`);
      if (!map && !source.optional) throw new VolumeError(`configmap "${source.name}" not found`);
      const files = keyedFiles(
        { ...((map?.data ?? {}) as Record<string, string>) },
        source.items,
        (v) => v,
        'configmap',
        Boolean(source.optional),
      );
      for (const [key, value] of Object.entries((map?.binaryData ?? {}) as Record<string, string>))
        files.push({ path: key, content: Buffer.from(value, 'base64') });
      const path = dir('kubernetes.io~configmap');
      writeFiles(path, files, source.defaultMode ?? 0o644);
      return { hostPath: path, readOnly: true };
    }
    if (volume.secret) {
      const source = volume.secret;
      const secret = this.store.peek('secrets', `${namespace}/${source.secretName}`);
      if (!secret && !source.optional) throw new VolumeError(`secret "${source.secretName}" not found`);
      const path = dir('kubernetes.io~secret');
      writeFiles(
        path,
        keyedFiles(
          (secret?.data ?? {}) as Record<string, string>,
          source.items,
          (v) => Buffer.from(v, 'base64'),
          'secret',
          Boolean(source.optional),
        ),
        source.defaultMode ?? 0o644,
      );
      return { hostPath: path, readOnly: true };
    }
    if (volume.downwardAPI) {
      const path = dir('kubernetes.io~downward-api');
      writeFiles(path, this.downwardFiles(pod, volume.downwardAPI.items ?? [], hostIP, podIP), volume.downwardAPI.defaultMode ?? 0o644);
      return { hostPath: path, readOnly: true };
    }
    if (volume.projected) {
      const files: Array<{ path: string; content: Buffer | string; mode?: number }> = [];
      for (const source of (volume.projected.sources ?? []) as Loose[]) {
        if (source.serviceAccountToken) files.push({ path: source.serviceAccountToken.path, content: this.token(pod) });
        if (source.configMap) {
          const map = this.store.peek('configmaps', `${namespace}/${source.configMap.name}`);
          if (!map && !source.configMap.optional) throw new VolumeError(`configmap "${source.configMap.name}" not found`);
          files.push(
            ...keyedFiles(
              (map?.data ?? {}) as Record<string, string>,
              source.configMap.items,
              (v) => v,
              'configmap',
              Boolean(source.configMap.optional),
            ),
          );
        }
        if (source.secret) {
          const secret = this.store.peek('secrets', `${namespace}/${source.secret.name}`);
          if (!secret && !source.secret.optional) throw new VolumeError(`secret "${source.secret.name}" not found`);
          files.push(
            ...keyedFiles(
              (secret?.data ?? {}) as Record<string, string>,
              source.secret.items,
              (v) => Buffer.from(v, 'base64'),
              'secret',
              Boolean(source.secret.optional),
            ),
          );
        }
        if (source.downwardAPI) files.push(...this.downwardFiles(pod, source.downwardAPI.items ?? [], hostIP, podIP));
      }
      const path = dir('kubernetes.io~projected');
      writeFiles(path, files, volume.projected.defaultMode ?? 0o644);
      return { hostPath: path, readOnly: true };
    }
    if (volume.persistentVolumeClaim) return this.claimed(namespace, volume.persistentVolumeClaim);
    const kind = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
    throw new VolumeError(`volume type ${kind} is not supported by this double's kubelet`);
  }

  private downwardFiles(pod: KObject, items: Loose[], hostIP: string, podIP: string | undefined) {
    return items.map((item) => {
      let content = '';
      if (item.fieldRef) {
        const fieldPath = item.fieldRef.fieldPath as string;
        const meta = pod.metadata;
        if (fieldPath === 'metadata.labels')
          content = Object.entries(meta.labels ?? {})
            .map(([k, v]) => `${k}="${v}"`)
            .join('\n');
        else if (fieldPath === 'metadata.annotations')
          content = Object.entries(meta.annotations ?? {})
            .map(([k, v]) => `${k}="${v}"`)
            .join('\n');
        else if (fieldPath === 'metadata.name') content = meta.name;
        else if (fieldPath === 'metadata.namespace') content = meta.namespace ?? '';
        else if (fieldPath === 'metadata.uid') content = meta.uid ?? '';
        else if (fieldPath === 'status.podIP') content = podIP ?? '';
        else if (fieldPath === 'status.hostIP') content = hostIP;
      } else if (item.resourceFieldRef) {
        const container = ((pod.spec as Loose).containers as Loose[]).find((c) => c.name === item.resourceFieldRef.containerName) ?? {};
        content = resourceValue(container, item.resourceFieldRef.resource, item.resourceFieldRef.divisor, this.allocatable());
      }
      return { path: item.path as string, content, mode: item.mode as number | undefined };
    });
  }

  /** A PersistentVolumeClaim: the directory of the hostPath or local volume bound to it. */
  private claimed(namespace: string, source: Loose): PreparedVolume {
    const claim = this.store.peek('persistentvolumeclaims', `${namespace}/${source.claimName}`);
    if (!claim) throw new VolumeError(`persistentvolumeclaim "${source.claimName}" not found`);
    const volumeName = (claim.spec as Loose).volumeName as string | undefined;
    const volume =
      volumeName && (claim.status as Loose | undefined)?.phase === 'Bound' ? this.store.peek('persistentvolumes', volumeName) : undefined;
    if (!volume) throw new VolumeError(`PVC ${namespace}/${source.claimName} is not bound`);
    const spec = volume.spec as Loose;
    if (spec.hostPath) return { hostPath: this.hostPath(spec.hostPath.path, spec.hostPath.type ?? ''), readOnly: Boolean(source.readOnly) };
    if (spec.local) return { hostPath: this.hostPath(spec.local.path, 'Directory'), readOnly: Boolean(source.readOnly) };
    throw new VolumeError(`volume ${volumeName} has a source this double's kubelet cannot mount (hostPath and local only)`);
  }

  /** A bearer token for the pod's service account, valid while the pod exists (TokenRequest). */
  private token(pod: KObject): string {
    if (this.podToken) return this.podToken;
    const token = `sa.${randomBytes(24).toString('base64url')}`;
    const namespace = pod.metadata.namespace!;
    const account = (pod.spec as Loose).serviceAccountName ?? 'default';
    this.authenticator.addToken(token, {
      username: `system:serviceaccount:${namespace}:${account}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    });
    this.podToken = token;
    return token;
  }

  private hostPath(path: string, type: string): string {
    const kind = (): string | undefined => {
      if (!existsSync(path)) return undefined;
      const stat = statSync(path);
      return stat.isDirectory()
        ? 'Directory'
        : stat.isFile()
          ? 'File'
          : stat.isSocket()
            ? 'Socket'
            : stat.isCharacterDevice()
              ? 'CharDevice'
              : stat.isBlockDevice()
                ? 'BlockDevice'
                : 'other';
    };
    const describe: Record<string, string> = {
      Directory: 'a directory',
      File: 'a file',
      Socket: 'a socket file',
      CharDevice: 'a character device',
      BlockDevice: 'a block device',
    };
    switch (type) {
      case '':
        return path;
      case 'DirectoryOrCreate':
        if (!existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o755 });
        else if (kind() !== 'Directory') throw new VolumeError(`hostPath type check failed: ${path} is not a directory`);
        return path;
      case 'FileOrCreate':
        if (!existsSync(path)) {
          mkdirSync(dirname(path), { recursive: true });
          closeSync(openSync(path, 'a', 0o644));
        } else if (kind() !== 'File') throw new VolumeError(`hostPath type check failed: ${path} is not a file`);
        return path;
      default:
        if (kind() !== type) throw new VolumeError(`hostPath type check failed: ${path} is not ${describe[type] ?? type}`);
        return path;
    }
  }

  /** Binds for a container's volumeMounts (`host:container[:ro]`). */
  static binds(container: Loose, volumes: Map<string, PreparedVolume>): string[] {
    const binds: string[] = [];
    for (const mount of (container.volumeMounts ?? []) as Loose[]) {
      const volume = volumes.get(mount.name);
      if (!volume) continue;
      let source = volume.hostPath;
      if (mount.subPath) {
        source = join(source, mount.subPath);
        if (!existsSync(source)) mkdirSync(source, { recursive: true });
      }
      const readOnly = mount.readOnly || volume.readOnly;
      binds.push(`${source}:${mount.mountPath}${readOnly ? ':ro' : ''}`);
    }
    return binds;
  }

  /** Removes the pod's volume directories and revokes its tokens. */
  cleanup(pod: KObject): void {
    rmSync(this.podDir(pod), { recursive: true, force: true });
    if (this.podToken) this.authenticator.removeToken(this.podToken);
    this.podToken = undefined;
  }
}
