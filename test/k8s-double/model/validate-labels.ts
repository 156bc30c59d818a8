// Label and annotation maps (apimachinery pkg/apis/meta/v1/validation/validation.go ValidateLabels,
// pkg/api/validation/objectmeta.go ValidateAnnotations).
import { fieldError, type FieldError, type FieldPath } from './field-errors.js';
import { byteLength, isQualifiedName, isValidLabelValue } from './names.js';

/** TotalAnnotationSizeLimitB: keys and values together, in bytes. */
const ANNOTATIONS_LIMIT = 256 * 1024;

export function validateLabels(labels: Record<string, string> | undefined, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const message of isQualifiedName(key)) errors.push(fieldError.invalid(at.toString(), key, message));
    for (const message of isValidLabelValue(value)) errors.push(fieldError.invalid(at.toString(), value, message));
  }
  return errors;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    // a qualified name whatever the case of its letters
    for (const message of isQualifiedName(key.toLowerCase())) errors.push(fieldError.invalid(at.toString(), key, message));
    total += byteLength(key) + byteLength(value);
  }
  if (total > ANNOTATIONS_LIMIT) errors.push(fieldError.tooLong(at.toString(), ANNOTATIONS_LIMIT));
  return errors;
}
