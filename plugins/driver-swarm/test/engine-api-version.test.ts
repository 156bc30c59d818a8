import { describe, expect, it } from 'vitest';
import { negotiatedApiVersion } from '../src/engine-api.js';

describe('the API version the driver asks of each engine', () => {
  it("is the engine's own newest, up to the newest the driver reads", () => {
    expect(negotiatedApiVersion({ Version: '20.10.24', ApiVersion: '1.41', MinAPIVersion: '1.12' })).toBe('1.41');
    expect(negotiatedApiVersion({ Version: '26.1.5', ApiVersion: '1.45', MinAPIVersion: '1.24' })).toBe('1.45');
    expect(negotiatedApiVersion({ Version: '28.2.2', ApiVersion: '1.50', MinAPIVersion: '1.24' })).toBe('1.45');
    expect(negotiatedApiVersion({ Version: '19.03.15', ApiVersion: '1.40' })).toBe('1.40');
  });

  it('is none (unversioned paths) when the engine does not say', () => {
    expect(negotiatedApiVersion({ Version: '20.10.24' })).toBeUndefined();
    expect(negotiatedApiVersion({ Version: 'x', ApiVersion: 'latest' })).toBeUndefined();
  });
});
