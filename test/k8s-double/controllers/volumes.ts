// The persistent volume controllers: claims bind to an Available volume that fits (class,
// access modes, size, selector) or, for the default `standard` class, to a volume the
// provisioner makes (a directory on the machine, as kind's local-path provisioner does);
// released volumes are deleted or kept by their reclaim policy; the pvc/pv-protection
// finalizers go once no pod uses the claim and the volume is unbound.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { findResource } from '../model/resources.js';
import { compareQuantities } from '../model/quantity.js';
import { matchesSelector } from '../model/selectors.js';
import { now } from '../model/time.js';
import type { Registry } from '../api/registry.js';
import type { KObject } from '../store/store.js';
import type { EventRecorder } from './events.js';
import type { Loose } from '../model/loose.js';

export const PROVISIONER = 'k8s-double.io/host-path';
const CLAIMS = 'persistentvolumeclaims';
const VOLUMES = 'persistentvolumes';
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_PROTECTION = 'kubernetes.io/pv-protection';

export interface VolumeControllerDeps {
  readonly registry: Registry;
  readonly events: EventRecorder;
  /** Where provisioned volumes live. */
  readonly root: string;
}

export class VolumeController {
  private readonly registry: Registry;
  private readonly events: EventRecorder;
  private readonly root: string;

  private dirty = true;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: Array<() => void> = [];

  constructor({ registry, events, root }: VolumeControllerDeps) {
    this.registry = registry;
    this.events = events;
    this.root = root;
  }

  start(): void {
    const mark = () => {
      this.dirty = true;
    };
    this.unsubscribe = [CLAIMS, VOLUMES, 'pods'].map((resource) => this.registry.store.subscribe(resource, mark));
    this.timer = setInterval(() => this.flush(), 200);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  /** The StorageClass clusters come with (kind's "standard"): provisioned at once, deleted with the claim. */
  static defaultClass(): Loose {
    return {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: PROVISIONER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    };
  }

  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const { store } = this.registry;
    for (const volume of store.values(VOLUMES)) {
      if (!(volume.status as Loose | undefined)?.phase || (volume.status as Loose).phase === 'Pending') {
        if (!(volume.spec as Loose).claimRef) this.setVolumePhase(volume, 'Available');
      }
    }
    for (const claim of store.values(CLAIMS)) {
      if (claim.metadata.deletionTimestamp) this.release(claim);
      else if ((claim.status as Loose | undefined)?.phase !== 'Bound') this.bind(claim);
    }
    for (const volume of store.values(VOLUMES)) this.reclaim(volume);
  }

  private bind(claim: KObject): void {
    const { store } = this.registry;
    const spec = claim.spec as Loose;
    const className = (spec.storageClassName as string | undefined) ?? '';
    const fits = (volume: KObject) => {
      const volumeSpec = volume.spec as Loose;
      if (volumeSpec.claimRef && volumeSpec.claimRef.uid !== claim.metadata.uid) return false;
      if ((volumeSpec.storageClassName ?? '') !== className) return false;
      if (!((spec.accessModes ?? []) as string[]).every((mode) => ((volumeSpec.accessModes ?? []) as string[]).includes(mode)))
        return false;
      if (compareQuantities(volumeSpec.capacity?.storage ?? '0', spec.resources.requests.storage) < 0) return false;
      return !spec.selector || matchesSelector(spec.selector, volume.metadata.labels);
    };
    let volume = spec.volumeName
      ? store.peek(VOLUMES, spec.volumeName)
      : store.values(VOLUMES).find((v) => (v.status as Loose | undefined)?.phase === 'Available' && fits(v));
    if (volume && !fits(volume)) return;
    if (!volume && !spec.volumeName) {
      const storageClass = className ? store.peek('storageclasses.storage.k8s.io', className) : undefined;
      if (storageClass?.provisioner !== PROVISIONER) {
        const message = className
          ? `waiting for a volume to be created either by the external provisioner '${storageClass?.provisioner ?? className}' or manually by the system administrator`
          : 'no persistent volumes available for this claim and no storage class is set';
        this.events.record(claim, 'Normal', className ? 'ExternalProvisioning' : 'FailedBinding', message, {
          component: 'persistentvolume-controller',
        });
        return;
      }
      volume = this.provision(claim, storageClass);
    }
    if (!volume) return;
    const boundVolume = structuredClone(volume);
    const volumeSpec = boundVolume.spec as Loose;
    volumeSpec.claimRef = {
      kind: 'PersistentVolumeClaim',
      namespace: claim.metadata.namespace,
      name: claim.metadata.name,
      uid: claim.metadata.uid,
      apiVersion: 'v1',
      resourceVersion: claim.metadata.resourceVersion,
    };
    boundVolume.status = { phase: 'Bound', lastPhaseTransitionTime: now() };
    store.put(VOLUMES, boundVolume);
    const boundClaim = structuredClone(claim);
    (boundClaim.spec as Loose).volumeName = boundVolume.metadata.name;
    boundClaim.metadata.annotations = {
      ...boundClaim.metadata.annotations,
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
    };
    boundClaim.status = { phase: 'Bound', accessModes: volumeSpec.accessModes, capacity: volumeSpec.capacity };
    store.put(CLAIMS, boundClaim);
  }

  private provision(claim: KObject, storageClass: KObject): KObject {
    const spec = claim.spec as Loose;
    const name = `pvc-${claim.metadata.uid}`;
    this.events.record(
      claim,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${claim.metadata.namespace}/${claim.metadata.name}"`,
      { component: PROVISIONER },
    );
    const volume: KObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name,
        uid: randomUUID(),
        creationTimestamp: now(),
        annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER },
        finalizers: [PV_PROTECTION],
      },
      spec: {
        capacity: { storage: spec.resources.requests.storage },
        hostPath: { path: join(this.root, name), type: 'DirectoryOrCreate' },
        accessModes: spec.accessModes,
        persistentVolumeReclaimPolicy: (storageClass.reclaimPolicy as string | undefined) ?? 'Delete',
        storageClassName: storageClass.metadata.name,
        volumeMode: spec.volumeMode ?? 'Filesystem',
      },
      status: { phase: 'Pending' },
    };
    const created = this.registry.store.put(VOLUMES, volume);
    this.events.record(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`, { component: PROVISIONER });
    return created;
  }

  private setVolumePhase(volume: KObject, phase: string): KObject {
    const updated = structuredClone(volume);
    updated.status = { phase, lastPhaseTransitionTime: now() };
    return this.registry.store.put(VOLUMES, updated);
  }

  /** A claim being deleted keeps its protection finalizer while a pod that is not finished uses it. */
  private release(claim: KObject): void {
    if (!(claim.metadata.finalizers ?? []).includes(PVC_PROTECTION)) return;
    const inUse = this.registry.store.values('pods', `${claim.metadata.namespace}/`).some((pod) => {
      const phase = (pod.status as Loose | undefined)?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return false;
      return (((pod.spec as Loose).volumes ?? []) as Loose[]).some((v) => v.persistentVolumeClaim?.claimName === claim.metadata.name);
    });
    if (inUse) return;
    this.registry.patch(findResource('', 'v1', CLAIMS)!, claim.metadata.namespace, claim.metadata.name, 'merge', {
      metadata: { finalizers: (claim.metadata.finalizers ?? []).filter((f) => f !== PVC_PROTECTION) },
    });
  }

  /** Volumes whose claim is gone: Delete removes them (and their directory), Retain keeps them Released. */
  private reclaim(volume: KObject): void {
    const spec = volume.spec as Loose;
    const phase = (volume.status as Loose | undefined)?.phase;
    if (volume.metadata.deletionTimestamp) {
      if (phase !== 'Bound' && (volume.metadata.finalizers ?? []).includes(PV_PROTECTION)) {
        this.registry.patch(findResource('', 'v1', VOLUMES)!, undefined, volume.metadata.name, 'merge', {
          metadata: { finalizers: (volume.metadata.finalizers ?? []).filter((f) => f !== PV_PROTECTION) },
        });
      }
      return;
    }
    if (phase !== 'Bound' || !spec.claimRef) return;
    const claim = this.registry.store.peek(CLAIMS, `${spec.claimRef.namespace}/${spec.claimRef.name}`);
    if (claim && claim.metadata.uid === spec.claimRef.uid) return;
    if (spec.persistentVolumeReclaimPolicy === 'Delete') {
      const released = this.setVolumePhase(volume, 'Released');
      if (volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] === PROVISIONER)
        rmSync(spec.hostPath.path, { recursive: true, force: true });
      this.registry.delete(findResource('', 'v1', VOLUMES)!, undefined, released.metadata.name);
    } else {
      this.setVolumePhase(volume, 'Released');
    }
  }
}
