import { describe, expect, it } from 'vitest';
import { testCaller } from '@swarm/plugin-sdk/testing';
import { rules } from './rules.js';

const authz = rules();

describe('what the web view shows of a caller', () => {
  it('says their bindings in words', () => {
    expect(authz.roles(testCaller('amy', ['team-a']))).toEqual(['role edit on team team-a (bindings[0])']);
    expect(authz.roles(testCaller('nobody', ['strangers']))).toEqual([]);
  });

  it('marks the view of a caller who sees everything, so the host shows them the cluster unfiltered', () => {
    expect(authz.visibility(testCaller('root', ['admins'])).everything).toBe(true);
    expect(authz.visibility(testCaller('olga', ['ops'])).everything).toBe(true);
    expect(authz.visibility(testCaller('amy', ['team-a'])).everything).toBeUndefined();
  });
});
