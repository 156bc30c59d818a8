import { describe, expect, it } from 'vitest';
import { dockerfileBases } from '../dist/access/dockerfile-images.js';

/* The images a Dockerfile builds on, read as the classic builder reads the forms a tenant can write. */

describe('dockerfileBases', () => {
  it('names FROM images and COPY --from images, not stages, stage indexes or scratch', () => {
    const dockerfile = [
      'FROM --platform=linux/amd64 golang:1.22 AS build',
      'RUN go build',
      'from scratch',
      'COPY --from=build /out /out',
      'COPY --from=0 /a /a',
      'COPY --from=theirs:1 /etc/passwd /x',
      'FROM Build',
    ].join('\n');
    expect(dockerfileBases(dockerfile)).toEqual({ images: ['golang:1.22', 'theirs:1'], variable: false });
  });

  it('follows continuations (with comments and blank lines inside), the escape directive, CRLF and a BOM', () => {
    expect(dockerfileBases('FROM \\\n# a comment\n\n  theirs:1\n').images).toEqual(['theirs:1']);
    expect(dockerfileBases('# escape=`\nFROM `\ntheirs:2\n').images).toEqual(['theirs:2']);
    expect(dockerfileBases('\uFEFFFROM theirs:3\r\nRUN true\r\n').images).toEqual(['theirs:3']);
    expect(dockerfileBases('  # an indented comment\nFROM theirs:4').images).toEqual(['theirs:4']);
  });

  it('says so when a reference is left to a variable', () => {
    expect(dockerfileBases('ARG BASE=theirs:1\nFROM $BASE\n').variable).toBe(true);
    expect(dockerfileBases('FROM busybox\nCOPY --from=${SRC} /a /a\n').variable).toBe(true);
  });
});
