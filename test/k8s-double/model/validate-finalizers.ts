// metadata.finalizers as the API server checks them on create and update:
// ValidateFinalizers (apimachinery pkg/api/validation/objectmeta.go: qualified names, not both
// orphan and foregroundDeletion) for every kind, plus validateKubeFinalizerName
// (pkg/apis/core/validation/validation.go: a name without '/' must be a standard one) for the
// kinds validated through core's ValidateObjectMeta.
import { fieldError, goStrings, type FieldError } from './field-errors.js';
import { isQualifiedName } from './names.js';

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';
/** helper.IsStandardFinalizerName's set. */
const STANDARD = new Set(['kubernetes', ORPHAN, FOREGROUND]);

export function validateFinalizers(finalizers: readonly string[] | undefined, core: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const list = finalizers ?? [];
  for (const finalizer of list) {
    for (const message of isQualifiedName(finalizer)) errors.push(fieldError.invalid('metadata.finalizers', finalizer, message));
  }
  if (list.includes(ORPHAN) && list.includes(FOREGROUND)) {
    errors.push(fieldError.invalid('metadata.finalizers', goStrings(list), `finalizer ${ORPHAN} and ${FOREGROUND} cannot be both set`));
  }
  if (core) {
    list.forEach((finalizer, i) => {
      if (!finalizer.includes('/') && !STANDARD.has(finalizer)) {
        errors.push(
          fieldError.invalid(`metadata.finalizers[${i}]`, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'),
        );
      }
    });
  }
  return errors;
}

/** ValidateNoNewFinalizers: an object being deleted takes no new finalizers. */
export function validateNoNewFinalizers(finalizers: readonly string[] | undefined, old: readonly string[] | undefined): FieldError[] {
  const added = [...new Set(finalizers ?? [])].filter((f) => !(old ?? []).includes(f)).sort();
  if (added.length === 0) return [];
  return [
    fieldError.forbidden(
      'metadata.finalizers',
      `no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added).text}`,
    ),
  ];
}
