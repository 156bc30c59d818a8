// ConfigMap and Secret contents (pkg/apis/core/validation/validation.go ValidateConfigMap,
// ValidateSecret): IsConfigMapKey keys, a key in both data and binaryData, and the 1 MiB limit
// (core.MaxSecretSize) on the values together.
import { fieldError, type FieldError } from './field-errors.js';
import { isConfigMapKey, byteLength } from './names.js';
import type { KObject } from '../store/store.js';

const MAX_SIZE = 1024 * 1024;

const entries = (object: KObject, field: string): Array<[string, string]> =>
  Object.entries((object[field] ?? {}) as Record<string, string>);

export function validateConfigMapData(map: KObject): FieldError[] {
  const errors: FieldError[] = [];
  const binary = (map.binaryData ?? {}) as Record<string, string>;
  let total = 0;
  for (const [key, value] of entries(map, 'data')) {
    for (const message of isConfigMapKey(key)) errors.push(fieldError.invalid(`data[${key}]`, key, message));
    if (key in binary) errors.push(fieldError.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += byteLength(value);
  }
  for (const [key, value] of entries(map, 'binaryData')) {
    for (const message of isConfigMapKey(key)) errors.push(fieldError.invalid(`binaryData[${key}]`, key, message));
    total += Buffer.from(value, 'base64').length;
  }
  // the whole object is at fault: the field path is empty
  if (total > MAX_SIZE) errors.push(fieldError.tooLong('', MAX_SIZE));
  return errors;
}

export function validateSecretData(secret: KObject): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  for (const [key, value] of entries(secret, 'data')) {
    for (const message of isConfigMapKey(key)) errors.push(fieldError.invalid(`data[${key}]`, key, message));
    total += Buffer.from(value, 'base64').length;
  }
  if (total > MAX_SIZE) errors.push(fieldError.tooLong('data', MAX_SIZE));
  return errors;
}
