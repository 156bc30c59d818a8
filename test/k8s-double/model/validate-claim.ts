// A PersistentVolumeClaim's spec as ValidatePersistentVolumeClaimSpec checks it
// (pkg/apis/core/validation/validation.go): access modes, a positive storage request, a DNS-1123
// storageClassName and a known volumeMode.
import { fieldError, type FieldError } from './field-errors.js';
import { isDNS1123Subdomain } from './names.js';
import { formatQuantity, parseQuantity } from './quantity.js';
import type { Loose } from './loose.js';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

export function validateAccessModes(modes: string[] | undefined, at: string): FieldError[] {
  if (!modes?.length) return [fieldError.required(at, 'at least 1 access mode is required')];
  return modes.filter((mode) => !ACCESS_MODES.includes(mode)).map((mode) => fieldError.notSupported(at, mode, ACCESS_MODES));
}

export function validateClaimSpec(spec: Loose): FieldError[] {
  const errors = validateAccessModes(spec.accessModes, 'spec.accessModes');
  const modes = (spec.accessModes ?? []) as string[];
  const oncePod = modes.includes('ReadWriteOncePod');
  if (oncePod && modes.some((mode) => mode !== 'ReadWriteOncePod' && ACCESS_MODES.includes(mode))) {
    errors.push(fieldError.forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  const storage = spec.resources?.requests?.storage as string | undefined;
  if (storage === undefined) errors.push(fieldError.required('spec.resources[storage]'));
  else if (parseQuantity(storage).nanos <= 0n) {
    errors.push(fieldError.invalid('spec.resources[storage]', formatQuantity(parseQuantity(storage)), 'must be greater than zero'));
  }
  if (spec.storageClassName) {
    for (const message of isDNS1123Subdomain(spec.storageClassName))
      errors.push(fieldError.invalid('spec.storageClassName', spec.storageClassName, message));
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) {
    errors.push(fieldError.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  return errors;
}
