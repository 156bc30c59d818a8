import { describe, expect, it } from 'vitest';
import { ErrorCodes, isSwarmError } from '@swarm/plugin-sdk';
import { formatExpression, parseExpression, parseExpressions } from '@swarm/plugin-sdk/helpers';

function refusal(source: string): unknown {
  try {
    parseExpression(source);
  } catch (error) {
    return error;
  }
  throw new Error(`"${source}" was accepted`);
}

describe('parseExpression', () => {
  it.each([
    ['node==node1', 'node', '==', 'node1', false],
    ['node!=node1', 'node', '!=', 'node1', false],
    ['storage==~ssd', 'storage', '==', 'ssd', true],
    ['storage!=~ssd', 'storage', '!=', 'ssd', true],
    ['com.example.tier==front*', 'com.example.tier', '==', 'front*', false],
    ['node==/(?i)NODE[12]/', 'node', '==', '/(?i)NODE[12]/', false],
    ['image==127.0.0.1:5000/busybox:1', 'image', '==', '127.0.0.1:5000/busybox:1', false],
    ['node==node1|node2', 'node', '==', 'node1|node2', false],
    // prefixed labels, as Kubernetes nodes carry them (classic refused the `/`)
    ['topology.kubernetes.io/zone==eu-1a', 'topology.kubernetes.io/zone', '==', 'eu-1a', false],
  ])('%s', (source, key, operator, value, soft) => {
    expect(parseExpression(source)).toMatchObject({ source, key, operator, value, soft });
  });

  it.each([
    ['storage=ssd', 'One of operator ==, != is expected'],
    ['storage', 'One of operator ==, != is expected'],
    ['a==b', "Key 'a' is invalid"],
    ['1abc==b', "Key '1abc' is invalid"],
    ['st rage==ssd', "Key 'st rage' is invalid"],
    ['storage==', "Value '' is invalid"],
    ['storage==a,b', "Value 'a,b' is invalid"],
    ['storage==a@b', "Value 'a@b' is invalid"],
  ])('refuses %s with Swarm classic text', (source, message) => {
    const error = refusal(source);
    expect(isSwarmError(error, ErrorCodes.INVALID_EXPRESSION)).toBe(true);
    expect((error as Error).message).toBe(message);
    expect((error as { httpStatus: number }).httpStatus).toBe(400);
  });

  it('checks == before != as Swarm does', () => {
    expect(refusal('a!=b==c')).toMatchObject({ message: "Key 'a!=b' is invalid" });
  });

  it('parses a list and stops at the first invalid entry', () => {
    expect(parseExpressions(['node==a1', 'zone!=b']).map(formatExpression)).toEqual(['node==a1', 'zone!=b']);
    expect(() => parseExpressions(['node==a1', 'oops'])).toThrow('One of operator ==, != is expected');
  });

  it('prints without the soft marker', () => {
    expect(formatExpression(parseExpression('storage==~ssd'))).toBe('storage==ssd');
  });
});

describe('Expression.matches', () => {
  const matches = (source: string, ...candidates: string[]): boolean => parseExpression(source).matches(candidates);

  it('globs are anchored', () => {
    expect(matches('node==node1', 'node1')).toBe(true);
    expect(matches('node==node1', 'node10')).toBe(false);
    expect(matches('node==node*', 'node10')).toBe(true);
    expect(matches('node==*1', 'node1', 'other')).toBe(true);
    expect(matches('node==NODE1', 'node1')).toBe(false);
  });

  it('regexes are unanchored and take a leading (?i)', () => {
    expect(matches('node==/node1/', 'node10')).toBe(true);
    expect(matches('node==/^node1$/', 'node10')).toBe(false);
    expect(matches('node==/(?i)NODE1/', 'node1')).toBe(true);
    expect(matches('node==/NODE1/', 'node1')).toBe(false);
    expect(matches('node==/node[23]/', 'node1', 'node3')).toBe(true);
  });

  it('!= holds when no candidate matches, including when there are none', () => {
    expect(matches('node!=node1', 'node2')).toBe(true);
    expect(matches('node!=node1', 'node2', 'node1')).toBe(false);
    expect(matches('label!=x')).toBe(true);
    expect(matches('label==x')).toBe(false);
  });

  it('an invalid pattern matches nothing', () => {
    expect(matches('node==/[a/', '[a')).toBe(false);
    expect(matches('node!=/[a/', '[a')).toBe(true);
  });

  it('keeps the other regex characters of a glob, as Swarm does', () => {
    expect(matches('node==node1|node2', 'node2')).toBe(true);
    expect(matches('zone==a.b', 'axb')).toBe(true);
  });

  it('a plain value matches itself only, whatever holds the candidates', () => {
    const expression = parseExpression('image==127.0.0.1:5000/busybox');
    expect(expression.matches(['127.0.0.1:5000/busybox'])).toBe(true);
    expect(expression.matches(['127.0.0.1:5000/busybox:1', ' 127.0.0.1:5000/busybox', '127.0.0.1:5000/busybox\n'])).toBe(false);
    expect(expression.matches(new Set(['redis', '127.0.0.1:5000/busybox']))).toBe(true);
    expect(expression.matches(new Set(['redis']))).toBe(false);
    expect(parseExpression('image!=busybox').matches(new Set(['busybox']))).toBe(false);
    expect(parseExpression('image!=busybox').matches(new Set<string>())).toBe(true);
    expect(parseExpression('image==busybox').matches(new Set<string>())).toBe(false);
  });

  it('a set of candidates still runs globs and regexes on each', () => {
    expect(matches('zone==a.b')).toBe(false);
    expect(parseExpression('zone==a.b').matches(new Set(['x', 'axb']))).toBe(true);
    expect(parseExpression('node==node*').matches(new Set(['db', 'node7']))).toBe(true);
    expect(parseExpression('node!=/^db$/').matches(new Set(['web', 'db']))).toBe(false);
  });

  it('matchesOne applies the operator to one candidate', () => {
    expect(parseExpression('storage!=ssd').matchesOne('')).toBe(true);
    expect(parseExpression('storage==*').matchesOne('')).toBe(true);
  });
});
