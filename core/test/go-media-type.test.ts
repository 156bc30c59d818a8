import { describe, expect, it } from 'vitest';
import { goMediaType, isGoJsonType } from '../dist/api/go-media-type.js';

describe("Go's mime.ParseMediaType, as dockerd asks it whether a body is JSON", () => {
  // moby's own sendBody cases (pkg/authorization authz_unix_test.go), then Go's mime package's
  it.each([
    ['application/json', true],
    ['Application/json', true],
    ['application/JSON', true],
    ['APPLICATION/JSON', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset=utf-8', true],
    ['application/json; charset=UTF8', true],
    ['application/json;charset=UTF8', true],
    ['text/html', false],
    ['', false],
    [' application/json ', true],
    ['application/json;', true],
    ['application/json; charset="utf-8"', true],
    ['application/json; a=1; a=1', true],
    ['application/json; charset', false],
    ['application/json; charset=', false],
    ['application/json; a=1; a=2', false],
    ['application/json; charset="utf-8', false],
    ['application/json;;', false],
    ['application/json-patch+json', false],
    ['application/json x', false],
    ['application/', false],
    ['application', false],
    ['application/json\u00a0', false],
  ])('%j is JSON: %s', (contentType, json) => {
    expect(isGoJsonType(contentType)).toBe(json);
  });

  it('reads the media type lower-cased, without parameters; undefined where Go answers an error', () => {
    expect(goMediaType('Text/Plain; Charset=UTF-8')).toBe('text/plain');
    expect(goMediaType('multipart/form-data; boundary="a\\"b"')).toBe('multipart/form-data');
    expect(goMediaType('text/plain; x')).toBeUndefined();
    expect(isGoJsonType(undefined)).toBe(false);
  });
});
