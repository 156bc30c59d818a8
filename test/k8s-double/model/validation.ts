// Validation of objects on create and update, with the API server's field paths and messages
// (pkg/apis/core/validation): what a real cluster refuses with 422 Invalid, the double refuses too.
// It covers what clients of this double send (names, labels, pod specs, services, nodes,
// config data); rarely used corners of the spec are stored unchecked.
import type { KObject } from '../store/store.js';
import { fieldError, path, type FieldError, type FieldPath } from './field-errors.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  isValidPortNumber,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  type NameValidator,
} from './names.js';
import { compareQuantities, parseQuantity } from './quantity.js';
import { VOLUME_SOURCES } from './types-core.js';
import { validateAccessModes, validateClaimSpec } from './validate-claim.js';
import { validateConfigMapData, validateSecretData } from './validate-config.js';
import { validateFinalizers, validateNoNewFinalizers } from './validate-finalizers.js';
import { validateAnnotations, validateLabels } from './validate-labels.js';
import { validateLeaseSpec } from './validate-lease.js';
import { validateNetworkPolicySpec, validatePodDisruptionBudgetSpec } from './validate-policies.js';
import { validateHostAliases, validatePodDNSConfig } from './validate-pod-dns.js';
import { nameIsPathSegment, validateBinding, validateBindingUpdate, validateRole } from './validate-rbac.js';
import { validateServiceSpec } from './validate-service.js';
import type { Loose } from './loose.js';

export { validateLabels } from './validate-labels.js';

type Errors = FieldError[];

const NAME_RULES: Record<string, NameValidator> = {
  Namespace: nameIsDNSLabel,
  Service: nameIsDNS1035Label,
  // ValidateRBACName (pkg/apis/rbac/validation/validation.go)
  Role: nameIsPathSegment,
  ClusterRole: nameIsPathSegment,
  RoleBinding: nameIsPathSegment,
  ClusterRoleBinding: nameIsPathSegment,
};

/** Kinds checked with apimachinery's generic ValidateObjectMeta, not core's (which adds the finalizer name rule). */
const GENERIC_META = new Set(['Lease', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export function validateObjectMeta(object: KObject, namespaced: boolean): Errors {
  const meta = object.metadata;
  const at = path('metadata');
  const nameRule = NAME_RULES[object.kind ?? ''] ?? nameIsDNSSubdomain;
  const errors: Errors = [];
  if (meta.generateName) {
    for (const message of nameRule(meta.generateName, true))
      errors.push(fieldError.invalid('metadata.generateName', meta.generateName, message));
  }
  if (!meta.name) errors.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else for (const message of nameRule(meta.name, false)) errors.push(fieldError.invalid('metadata.name', meta.name, message));
  if (namespaced) {
    if (!meta.namespace) errors.push(fieldError.required('metadata.namespace'));
    else
      for (const message of isDNS1123Label(meta.namespace)) errors.push(fieldError.invalid('metadata.namespace', meta.namespace, message));
  } else if (meta.namespace) {
    errors.push(fieldError.forbidden('metadata.namespace', 'not allowed on this type'));
  }
  errors.push(...validateLabels(meta.labels, at.child('labels')));
  errors.push(...validateAnnotations(meta.annotations, at.child('annotations')));
  errors.push(...validateFinalizers(meta.finalizers, !GENERIC_META.has(object.kind ?? '')));
  return errors;
}

export function validateObjectMetaUpdate(object: KObject, old: KObject): Errors {
  const errors: Errors = [];
  const immutable = (field: 'name' | 'namespace' | 'uid' | 'creationTimestamp') => {
    if ((object.metadata[field] ?? '') !== (old.metadata[field] ?? '')) {
      errors.push(fieldError.invalid(`metadata.${field}`, object.metadata[field] ?? '', 'field is immutable'));
    }
  };
  if (old.metadata.deletionTimestamp) errors.push(...validateNoNewFinalizers(object.metadata.finalizers, old.metadata.finalizers));
  immutable('name');
  immutable('namespace');
  immutable('uid');
  errors.push(...validateLabels(object.metadata.labels, path('metadata', 'labels')));
  errors.push(...validateAnnotations(object.metadata.annotations, path('metadata', 'annotations')));
  errors.push(...validateFinalizers(object.metadata.finalizers, !GENERIC_META.has(object.kind ?? '')));
  return errors;
}

function validateResources(resources: Loose | undefined, at: FieldPath): Errors {
  const errors: Errors = [];
  if (!resources) return errors;
  for (const kind of ['limits', 'requests'] as const) {
    for (const [name, value] of Object.entries((resources[kind] ?? {}) as Record<string, string>)) {
      const where = at.child(kind).key(name).toString();
      const standard = ['cpu', 'memory', 'ephemeral-storage'].includes(name) || name.startsWith('hugepages-') || name.includes('/');
      if (!standard) errors.push(fieldError.invalid(where, name, 'must be a standard resource type or fully qualified'));
      else if (parseQuantity(value).nanos < 0n) errors.push(fieldError.invalid(where, value, 'must be greater than or equal to 0'));
    }
  }
  for (const [name, request] of Object.entries((resources.requests ?? {}) as Record<string, string>)) {
    const limit = (resources.limits ?? {})[name] as string | undefined;
    if (limit !== undefined && compareQuantities(request, limit) > 0) {
      errors.push(
        fieldError.invalid(at.child('requests').key(name).toString(), request, `must be less than or equal to ${name} limit of ${limit}`),
      );
    }
  }
  return errors;
}

/** A list item's name: required, a DNS-1123 label, unique in the list (containers, volumes, ports). */
function checkItemName(name: string | undefined, at: FieldPath, seen: Set<string>, errors: Errors, required = true): void {
  const where = at.child('name').toString();
  if (!name) {
    if (required) errors.push(fieldError.required(where));
    return;
  }
  for (const message of isDNS1123Label(name)) errors.push(fieldError.invalid(where, name, message));
  if (seen.has(name)) errors.push(fieldError.duplicate(where, name));
  seen.add(name);
}

function validateContainers(containers: Loose[], at: FieldPath, volumes: Set<string>, allNames: Set<string>): Errors {
  const errors: Errors = [];
  containers.forEach((container, i) => {
    const here = at.index(i);
    checkItemName(container.name, here, allNames, errors);
    if (!container.image) errors.push(fieldError.required(here.child('image').toString()));
    const portNames = new Set<string>();
    ((container.ports ?? []) as Loose[]).forEach((port, p) => {
      const portAt = here.child('ports').index(p);
      // validateContainerPorts: a duplicate is reported only for a valid name; containerPort 0 is unset
      if (port.name) {
        const problems = isValidPortName(port.name);
        for (const message of problems) errors.push(fieldError.invalid(portAt.child('name').toString(), port.name, message));
        if (problems.length === 0 && portNames.has(port.name))
          errors.push(fieldError.duplicate(portAt.child('name').toString(), port.name));
        portNames.add(port.name);
      }
      if (!port.containerPort) errors.push(fieldError.required(portAt.child('containerPort').toString()));
      else
        for (const message of isValidPortNumber(port.containerPort))
          errors.push(fieldError.invalid(portAt.child('containerPort').toString(), port.containerPort, message));
      if (port.hostPort)
        for (const message of isValidPortNumber(port.hostPort))
          errors.push(fieldError.invalid(portAt.child('hostPort').toString(), port.hostPort, message));
      if (!['TCP', 'UDP', 'SCTP'].includes(port.protocol))
        errors.push(fieldError.notSupported(portAt.child('protocol').toString(), port.protocol, ['SCTP', 'TCP', 'UDP']));
    });
    ((container.env ?? []) as Loose[]).forEach((env, e) => {
      const envAt = here.child('env').index(e);
      if (!env.name) errors.push(fieldError.required(envAt.child('name').toString()));
      else for (const message of isEnvVarName(env.name)) errors.push(fieldError.invalid(envAt.child('name').toString(), env.name, message));
      if (env.value && env.valueFrom) {
        errors.push(fieldError.invalid(envAt.child('valueFrom').toString(), '', 'may not be specified when `value` is not empty'));
      }
    });
    const mountPaths = new Set<string>();
    ((container.volumeMounts ?? []) as Loose[]).forEach((mount, m) => {
      const mountAt = here.child('volumeMounts').index(m);
      if (!mount.name) errors.push(fieldError.required(mountAt.child('name').toString()));
      else if (!volumes.has(mount.name)) errors.push(fieldError.notFound(mountAt.child('name').toString(), mount.name));
      if (!mount.mountPath) errors.push(fieldError.required(mountAt.child('mountPath').toString()));
      else if (mountPaths.has(mount.mountPath))
        errors.push(fieldError.invalid(mountAt.child('mountPath').toString(), mount.mountPath, 'must be unique'));
      else mountPaths.add(mount.mountPath);
    });
    errors.push(...validateResources(container.resources, here.child('resources')));
    if (container.stdinOnce && !container.stdin) {
      errors.push(fieldError.invalid(here.child('stdinOnce').toString(), true, 'must be false when `stdin` is false'));
    }
  });
  return errors;
}

function validateVolumes(volumes: Loose[], at: FieldPath): { errors: Errors; names: Set<string> } {
  const errors: Errors = [];
  const names = new Set<string>();
  volumes.forEach((volume, i) => {
    const here = at.index(i);
    checkItemName(volume.name, here, names, errors);
    const sources = VOLUME_SOURCES.filter((source) => volume[source] !== undefined);
    if (sources.length === 0) errors.push(fieldError.required(here.toString(), 'must specify a volume type'));
    for (const extra of sources.slice(1))
      errors.push(fieldError.forbidden(here.child(extra).toString(), 'may not specify more than 1 volume type'));
    if (volume.hostPath && !volume.hostPath.path) errors.push(fieldError.required(here.child('hostPath').child('path').toString()));
    if (volume.persistentVolumeClaim && !volume.persistentVolumeClaim.claimName) {
      errors.push(fieldError.required(here.child('persistentVolumeClaim').child('claimName').toString()));
    }
  });
  return { errors, names };
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

function validateTolerations(tolerations: Loose[], at: FieldPath): Errors {
  const errors: Errors = [];
  tolerations.forEach((toleration, i) => {
    const here = at.index(i);
    if (toleration.key)
      for (const message of isQualifiedName(toleration.key))
        errors.push(fieldError.invalid(here.child('key').toString(), toleration.key, message));
    if (toleration.operator === 'Exists' && toleration.value) {
      errors.push(
        fieldError.invalid(here.child('operator').toString(), toleration.value, "value must be empty when `operator` is 'Exists'"),
      );
    }
    if (!toleration.key && toleration.operator !== 'Exists') {
      errors.push(
        fieldError.invalid(
          here.child('operator').toString(),
          toleration.operator ?? '',
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (toleration.tolerationSeconds !== undefined && toleration.effect !== 'NoExecute') {
      errors.push(
        fieldError.invalid(
          here.child('effect').toString(),
          toleration.effect ?? '',
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    }
  });
  return errors;
}

export function validatePodSpec(spec: Loose, at: FieldPath): Errors {
  const errors: Errors = [];
  const volumes = validateVolumes((spec.volumes ?? []) as Loose[], at.child('volumes'));
  errors.push(...volumes.errors);
  const containers = (spec.containers ?? []) as Loose[];
  if (containers.length === 0) errors.push(fieldError.required(at.child('containers').toString()));
  const names = new Set<string>();
  errors.push(...validateContainers((spec.initContainers ?? []) as Loose[], at.child('initContainers'), volumes.names, names));
  errors.push(...validateContainers(containers, at.child('containers'), volumes.names, names));
  if (!RESTART_POLICIES.includes(spec.restartPolicy))
    errors.push(fieldError.notSupported(at.child('restartPolicy').toString(), spec.restartPolicy ?? '', RESTART_POLICIES));
  if (!DNS_POLICIES.includes(spec.dnsPolicy))
    errors.push(fieldError.notSupported(at.child('dnsPolicy').toString(), spec.dnsPolicy ?? '', DNS_POLICIES));
  if (spec.dnsPolicy === 'None' && !spec.dnsConfig?.nameservers?.length) {
    errors.push(
      fieldError.required(
        at.child('dnsConfig').child('nameservers').toString(),
        'must provide at least one DNS nameserver when `dnsPolicy` is None',
      ),
    );
  }
  errors.push(...validatePodDNSConfig(spec.dnsConfig, at.child('dnsConfig')));
  errors.push(...validateHostAliases(spec.hostAliases, at.child('hostAliases')));
  if (spec.nodeName)
    for (const message of isDNS1123Subdomain(spec.nodeName))
      errors.push(fieldError.invalid(at.child('nodeName').toString(), spec.nodeName, message));
  if (spec.hostname)
    for (const message of isDNS1123Label(spec.hostname))
      errors.push(fieldError.invalid(at.child('hostname').toString(), spec.hostname, message));
  if (spec.subdomain)
    for (const message of isDNS1123Label(spec.subdomain))
      errors.push(fieldError.invalid(at.child('subdomain').toString(), spec.subdomain, message));
  errors.push(...validateLabels(spec.nodeSelector, at.child('nodeSelector')));
  errors.push(...validateTolerations((spec.tolerations ?? []) as Loose[], at.child('tolerations')));
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0) {
    errors.push(
      fieldError.invalid(
        at.child('terminationGracePeriodSeconds').toString(),
        spec.terminationGracePeriodSeconds,
        'must be greater than or equal to 0',
      ),
    );
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds < 1) {
    errors.push(
      fieldError.invalid(
        at.child('activeDeadlineSeconds').toString(),
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  if (spec.hostNetwork) {
    containers.forEach((container, i) =>
      ((container.ports ?? []) as Loose[]).forEach((port, p) => {
        if (port.hostPort !== port.containerPort) {
          errors.push(
            fieldError.invalid(
              at.child('containers').index(i).child('ports').index(p).child('containerPort').toString(),
              port.containerPort,
              'must match `hostPort` when `hostNetwork` is true',
            ),
          );
        }
      }),
    );
  }
  return errors;
}

const POD_UPDATE_MESSAGE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const stable = (value: unknown): string =>
  JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));

export function validatePodUpdate(pod: KObject, old: KObject): Errors {
  const errors = validateObjectMetaUpdate(pod, old);
  const spec = structuredClone(pod.spec) as Loose;
  const oldSpec = old.spec as Loose;
  // what may change is copied from the old spec before comparing the rest
  const copyImages = (key: 'containers' | 'initContainers') =>
    ((spec[key] ?? []) as Loose[]).forEach((container, i) => {
      const before = (oldSpec[key] ?? [])[i];
      if (before) container.image = before.image;
    });
  copyImages('containers');
  copyImages('initContainers');
  spec.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  const oldTolerations = (oldSpec.tolerations ?? []) as Loose[];
  const newTolerations = (spec.tolerations ?? []) as Loose[];
  const keepsOld = oldTolerations.every((t) => newTolerations.some((n) => stable(n) === stable(t)));
  if (keepsOld) spec.tolerations = oldSpec.tolerations;
  spec.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  if (spec.schedulingGates === undefined || (spec.schedulingGates as unknown[]).length <= (oldSpec.schedulingGates ?? []).length)
    spec.schedulingGates = oldSpec.schedulingGates;
  if (stable(spec) !== stable(oldSpec)) errors.push(fieldError.forbidden('spec', POD_UPDATE_MESSAGE));
  ((pod.spec as Loose).containers as Loose[]).forEach((container, i) => {
    if (!container.image) errors.push(fieldError.required(`spec.containers[${i}].image`));
  });
  return errors;
}

function validateServiceUpdate(service: KObject, old: KObject): Errors {
  const errors = validateObjectMetaUpdate(service, old);
  const spec = service.spec as Loose;
  const oldSpec = old.spec as Loose;
  if (oldSpec.clusterIP && spec.clusterIP !== oldSpec.clusterIP && spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
    errors.push(fieldError.invalid('spec.clusterIPs[0]', spec.clusterIP ?? '', 'may not change once set'));
  }
  return [...errors, ...validateServiceSpec(spec)];
}

function validateNodeSpec(spec: Loose | undefined): Errors {
  const errors: Errors = [];
  const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
  ((spec?.taints ?? []) as Loose[]).forEach((taint, i) => {
    const here = path('spec', 'taints').index(i);
    if (!taint.key) errors.push(fieldError.required(here.child('key').toString()));
    else
      for (const message of isQualifiedName(taint.key)) errors.push(fieldError.invalid(here.child('key').toString(), taint.key, message));
    if (taint.value)
      for (const message of isValidLabelValue(taint.value))
        errors.push(fieldError.invalid(here.child('value').toString(), taint.value, message));
    if (!taint.effect) errors.push(fieldError.required(here.child('effect').toString()));
    else if (!effects.includes(taint.effect)) errors.push(fieldError.notSupported(here.child('effect').toString(), taint.effect, effects));
  });
  return errors;
}

function validateClaim(claim: KObject): Errors {
  return validateClaimSpec((claim.spec ?? {}) as Loose);
}

function validatePersistentVolume(volume: KObject): Errors {
  const spec = (volume.spec ?? {}) as Loose;
  const errors = validateAccessModes(spec.accessModes, 'spec.accessModes');
  if (!spec.capacity?.storage) errors.push(fieldError.required('spec.capacity'));
  const sources = Object.keys(spec).filter(
    (key) =>
      ![
        'capacity',
        'accessModes',
        'claimRef',
        'persistentVolumeReclaimPolicy',
        'storageClassName',
        'mountOptions',
        'volumeMode',
        'nodeAffinity',
        'volumeAttributesClassName',
      ].includes(key),
  );
  if (sources.length === 0) errors.push(fieldError.required('spec', 'must specify a volume type'));
  if (sources.length > 1) errors.push(fieldError.forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'));
  return errors;
}

/** Kind-specific checks on create (metadata is checked by the caller). */
export function validateCreate(object: KObject): Errors {
  switch (object.kind) {
    case 'Pod':
      return validatePodSpec(object.spec as Loose, path('spec'));
    case 'Service':
      return validateServiceSpec(object.spec as Loose);
    case 'Node':
      return validateNodeSpec(object.spec as Loose);
    case 'ConfigMap':
      return validateConfigMapData(object);
    case 'Secret':
      return validateSecretData(object);
    case 'Lease':
      return validateLeaseSpec(object.spec as Loose | undefined);
    case 'PodDisruptionBudget':
      return validatePodDisruptionBudgetSpec(object.spec as Loose | undefined);
    case 'NetworkPolicy':
      return validateNetworkPolicySpec(object.spec as Loose | undefined);
    case 'Event':
      return object.involvedObject ? [] : [fieldError.required('involvedObject')];
    case 'Binding':
      return (object.target as Loose | undefined)?.name ? [] : [fieldError.required('target.name')];
    case 'PersistentVolumeClaim':
      return validateClaim(object);
    case 'PersistentVolume':
      return validatePersistentVolume(object);
    case 'Role':
    case 'ClusterRole':
      return validateRole(object);
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return validateBinding(object);
    default:
      return [];
  }
}

/** Kind-specific checks on update, including metadata. */
export function validateUpdate(object: KObject, old: KObject): Errors {
  switch (object.kind) {
    case 'Pod':
      return [...validatePodUpdate(object, old), ...validatePodSpec(object.spec as Loose, path('spec'))];
    case 'Service':
      return validateServiceUpdate(object, old);
    case 'Node':
      return [...validateObjectMetaUpdate(object, old), ...validateNodeSpec(object.spec as Loose)];
    case 'ConfigMap':
    case 'Secret': {
      const data = object.kind === 'ConfigMap' ? validateConfigMapData(object) : validateSecretData(object);
      const errors = [...validateObjectMetaUpdate(object, old), ...data];
      if (old.immutable === true && (stable(object.data) !== stable(old.data) || stable(object.binaryData) !== stable(old.binaryData))) {
        errors.push(fieldError.forbidden('data', 'field is immutable when `immutable` is set'));
      }
      return errors;
    }
    case 'PersistentVolumeClaim': {
      const errors = validateObjectMetaUpdate(object, old);
      const spec = { ...(object.spec as Loose), resources: undefined, volumeName: undefined };
      const before = { ...(old.spec as Loose), resources: undefined, volumeName: undefined };
      if (
        stable(spec) !== stable(before) ||
        ((old.spec as Loose).volumeName && (object.spec as Loose).volumeName !== (old.spec as Loose).volumeName)
      ) {
        errors.push(
          fieldError.forbidden(
            'spec',
            'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
          ),
        );
      }
      return [...errors, ...validateClaim(object)];
    }
    case 'Lease':
      return [...validateObjectMetaUpdate(object, old), ...validateLeaseSpec(object.spec as Loose | undefined)];
    case 'PodDisruptionBudget':
      return [...validateObjectMetaUpdate(object, old), ...validatePodDisruptionBudgetSpec(object.spec as Loose | undefined)];
    case 'NetworkPolicy':
      return [...validateObjectMetaUpdate(object, old), ...validateNetworkPolicySpec(object.spec as Loose | undefined)];
    case 'Role':
    case 'ClusterRole':
      return [...validateRole(object), ...validateObjectMetaUpdate(object, old)];
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return [...validateBindingUpdate(object, old), ...validateObjectMetaUpdate(object, old)];
    default:
      return validateObjectMetaUpdate(object, old);
  }
}
