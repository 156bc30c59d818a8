import type { Container, Image, Node } from '@swarm/plugin-sdk';
import type { AccessObject } from '@swarm/plugin-sdk/access';
import { describe, expect, it } from 'vitest';
import { hiddenUsers, imageCopies, imageEventObject, mayTakeName, withDefaultTag } from '../dist/access/scoped-images.js';

/*
 * Image names judged per node, as each engine resolves them: what a name may be moved onto, which
 * copies a reference reaches, and whose an image event is.
 */

const OWNER = 'com.docker.swarm.owner';
const TEAM = 'com.docker.swarm.team';
const TEAM_A = { [OWNER]: 'alice', [TEAM]: 'team-a' };
const TEAM_B = { [OWNER]: 'bob', [TEAM]: 'team-b' };

/** A node holding images (tags and labels), resolving a reference by tag or ID as an engine does. */
function node(name: string, images: Array<{ id: string; tags: string[]; labels?: Record<string, string> }>): Node {
  const built: Image[] = [];
  const self = {
    name,
    images: () => built,
    image: (reference: string) =>
      built.find(
        (image) =>
          image.id === reference || image.repoTags.includes(withDefaultTag(reference)) || image.id.startsWith(`sha256:${reference}`),
      ),
  } as unknown as Node;
  for (const spec of images) {
    built.push({
      id: spec.id,
      repoTags: spec.tags,
      repoDigests: [],
      summary: { Labels: spec.labels ?? {} } as Image['summary'],
      node: self,
    });
  }
  return self;
}

/** bob's view: team b's and unlabelled (shared) images. */
const bobSees = (object: AccessObject) => object.labels[TEAM] === undefined || object.labels[TEAM] === 'team-b';

const nodes = [
  node('n1', [
    { id: 'sha256:aaa', tags: ['secret:1'], labels: TEAM_A },
    { id: 'sha256:bbb', tags: ['busybox:latest', 'base:1'] },
  ]),
  node('n2', [
    { id: 'sha256:ccc', tags: ['app:1'], labels: TEAM_B },
    { id: 'sha256:ddd', tags: ['secret:1'], labels: TEAM_B },
  ]),
];

describe('mayTakeName', () => {
  it('refuses a name another team’s image holds on any node, and a shared name for a team’s image', () => {
    expect(mayTakeName(nodes, 'secret:1', 'owned', bobSees)).toBe(false);
    expect(mayTakeName(nodes, 'docker.io/library/busybox', 'owned', bobSees)).toBe(false);
    expect(mayTakeName(nodes, 'busybox', 'shared', bobSees)).toBe(true);
    expect(mayTakeName(nodes, 'app:1', 'owned', bobSees)).toBe(true);
    expect(mayTakeName(nodes, 'new:1', 'owned', bobSees)).toBe(true);
  });
});

describe('imageCopies', () => {
  it('reaches every node that resolves a reference, and the one `node/name` names when none does', () => {
    expect(imageCopies(nodes, 'secret:1').map((copy) => `${copy.node.name} ${copy.image.id}`)).toEqual(['n1 sha256:aaa', 'n2 sha256:ddd']);
    expect(imageCopies(nodes, 'n2/app:1').map((copy) => copy.image.id)).toEqual(['sha256:ccc']);
    expect(imageCopies(nodes, 'n1/app:1')).toEqual([]);
  });
});

describe('hiddenUsers', () => {
  it('finds the containers of the image on its node that the caller may not see', () => {
    const image = nodes[0]!.images()[1]!;
    const container = (id: string, labels: Record<string, string>, on: string) =>
      ({ id, imageId: 'sha256:bbb', image: 'busybox', labels, node: { name: on } }) as unknown as Container;
    const users = [container('c1', TEAM_A, 'n1'), container('c2', TEAM_B, 'n1'), container('c3', TEAM_A, 'n2')];
    expect(hiddenUsers(image, users, (object) => object.kind === 'container' && bobSees(object)).map((found) => found.id)).toEqual(['c1']);
  });
});

describe('imageEventObject', () => {
  it('judges an event by the labels dockerd copies into it; a delete of an image no longer known is nobody’s to see', () => {
    expect(imageEventObject({ action: 'tag', id: 'sha256:aaa', attributes: { ...TEAM_A, name: 'secret:1' } }, [])?.labels[TEAM]).toBe(
      'team-a',
    );
    expect(imageEventObject({ action: 'pull', id: 'busybox:latest', attributes: { name: 'busybox:latest' } }, [])?.labels).toEqual({
      name: 'busybox:latest',
    });
    expect(imageEventObject({ action: 'delete', id: 'sha256:aaa', node: 'n1', attributes: {} }, nodes[0]!.images())?.labels[TEAM]).toBe(
      'team-a',
    );
    expect(imageEventObject({ action: 'delete', id: 'sha256:zzz', attributes: {} }, nodes[0]!.images())).toBeUndefined();
  });
});
