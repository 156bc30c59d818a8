import { describe, expect, it } from 'vitest';
import { dockerfileFetches } from '../dist/access/dockerfile-fetches.js';

/*
 * The URLs a classic build's Dockerfile makes the engine fetch (`ADD http://...`), read as dockerd's
 * classic builder reads and expands them (moby/buildkit's parser and shell lexer), in the forms a
 * tenant can write; and the sources that could be URLs whose variables cannot be known here.
 */

const urls = (dockerfile: string, args: Record<string, string> = {}) => dockerfileFetches(dockerfile, args).urls;
const unresolved = (dockerfile: string, args: Record<string, string> = {}) => dockerfileFetches(dockerfile, args).unresolved;

describe('dockerfileFetches: the forms of ADD', () => {
  it('finds http:// and https:// sources, with flags, in any case of the keyword, each once', () => {
    const dockerfile = [
      'FROM busybox',
      'ADD http://127.0.0.1:2375/containers/json /x',
      'add --checksum=sha256:0123 https://example.com/a.tgz /y',
      'Add --chown=1:1 --link http://a/ http://b/ /dir/',
      'ADD http://127.0.0.1:2375/containers/json /again',
    ].join('\n');
    expect(dockerfileFetches(dockerfile, {})).toEqual({
      urls: ['http://127.0.0.1:2375/containers/json', 'https://example.com/a.tgz', 'http://a/', 'http://b/'],
      unresolved: [],
    });
  });

  it('reads the JSON form, and the sources only (not the destination, not COPY, not other schemes or cases)', () => {
    expect(urls('FROM busybox\nADD ["http://a/json", "/x"]')).toEqual(['http://a/json']);
    expect(urls('FROM busybox\nADD --checksum=sha256:00 [ "https://a/b" , "http://c/" ]')).toEqual(['https://a/b']);
    expect(urls('FROM busybox\nADD ./local http://not-a-source/')).toEqual([]);
    expect(urls('FROM busybox\nCOPY http://a/ /x\nRUN wget http://b/')).toEqual([]);
    // moby's urlutil.IsURL: the scheme as written, lower case
    expect(urls('FROM busybox\nADD HTTP://a/ /x\nADD ftp://b/ /y\nADD git@github.com:o/r /z')).toEqual([]);
    expect(urls('FROM busybox\nADD http://only-source')).toEqual([]);
  });

  it('removes quotes and escapes as the shell lexer does', () => {
    expect(urls('FROM busybox\nADD "http://q/r" /x')).toEqual(['http://q/r']);
    expect(urls("FROM busybox\nADD 'http://s/t' /x")).toEqual(['http://s/t']);
    expect(urls('FROM busybox\nADD h\\ttp://u/v /x')).toEqual(['http://u/v']);
    expect(urls('FROM busybox\nADD ["h\\"ttp://w/\\"", "/x"]')).toEqual(['http://w/']);
  });

  it('follows continuations, with comments and blank lines inside, CRLF, a BOM and indentation', () => {
    expect(urls('FROM busybox\nADD http://a/\\\n# a comment\n\nb /x')).toEqual(['http://a/b']);
    // a continued line keeps its leading spaces: the source ends where the line did
    expect(urls('FROM busybox\nADD http://a/\\\n  c /x')).toEqual(['http://a/']);
    expect(urls('\uFEFFFROM busybox\r\n   ADD \\\r\n http://d/ /x\r\n')).toEqual(['http://d/']);
    // an escaped escape character at the end does not continue the line
    expect(urls('FROM busybox\nADD http://e/ /x\\\\\nADD http://f/ /y')).toEqual(['http://e/', 'http://f/']);
  });

  it('uses the escape directive, only at the top and only when it is the first unknown-free comment', () => {
    expect(urls('# escape=`\nFROM busybox\nADD http://a/`\nb /x')).toEqual(['http://a/b']);
    expect(urls('# syntax=docker/dockerfile:1\n# escape=`\nFROM busybox\nADD http://`a/ /x')).toEqual(['http://a/']);
    // after another comment, `# escape=` is a comment: the backslash stays the escape character
    expect(urls('# hello\n# escape=`\nFROM busybox\nADD http://a/\\\nb /x')).toEqual(['http://a/b']);
  });

  it('reads a flag byte by byte as Go does: a UTF-8 character holding 0x85 ends it', () => {
    expect(urls('FROM busybox\nADD --chown=\u00c5http://flag/ /y')).toEqual(['http://flag/']);
    expect(urls('FROM busybox\nADD "--chown=x http://quoted/" /y')).toEqual([]);
  });

  it('reads heredoc bodies both ways, so that a body line ending in an escape hides no instruction', () => {
    expect(urls("FROM busybox\nRUN <<'EOF\\'\necho\nEOF\\\nADD http://after/ /y")).toEqual(['http://after/']);
    expect(urls('FROM busybox\nRUN <<EOF\necho\nEOF\nADD http://next/ /y')).toEqual(['http://next/']);
  });

  it('counts ONBUILD ADD: the builds on this image fetch it', () => {
    expect(dockerfileFetches('FROM busybox\nONBUILD ADD http://later/ /x\nONBUILD ADD $URL /y', {})).toEqual({
      urls: ['http://later/'],
      unresolved: ['$URL'],
    });
  });
});

describe('dockerfileFetches: variables', () => {
  it('expands ARG defaults, build args and ARGs before FROM in a stage on scratch', () => {
    expect(urls('FROM scratch\nARG URL\nADD $URL /x', { URL: 'http://c/d' })).toEqual(['http://c/d']);
    expect(urls('FROM scratch\nARG URL=http://e/\nADD ${URL}f /x')).toEqual(['http://e/f']);
    expect(urls('FROM scratch\nARG URL=http://e/\nADD ${URL}f /x', { URL: 'http://given/' })).toEqual(['http://given/f']);
    expect(urls('ARG URL=http://meta/\nFROM scratch\nARG URL\nADD $URL /x')).toEqual(['http://meta/']);
    expect(urls('ARG BASE=scratch\nFROM $BASE\nARG U\nADD ${U:-http://default/} /x')).toEqual(['http://default/']);
    expect(urls('FROM scratch\nARG H=host\nADD "http://${H}:2375/" /x')).toEqual(['http://host:2375/']);
  });

  it('does not give a stage a build arg it does not declare, except the proxy variables', () => {
    expect(dockerfileFetches('FROM scratch\nADD $URL /x', { URL: 'http://undeclared/' })).toEqual({ urls: [], unresolved: [] });
    expect(urls('ARG URL=http://meta/\nFROM scratch\nADD $URL /x')).toEqual([]);
    expect(urls('FROM scratch\nADD $HTTP_PROXY /x', { HTTP_PROXY: 'http://proxy/' })).toEqual(['http://proxy/']);
    expect(urls('FROM scratch AS one\nARG URL=http://one/\nFROM scratch\nADD $URL /x')).toEqual([]);
  });

  it('expands ENV, which wins over an ARG and holds in the stages built on its stage', () => {
    expect(urls('FROM busybox\nENV URL=http://e/\nADD ${URL}f /x')).toEqual(['http://e/f']);
    expect(urls('FROM busybox\nENV URL http://legacy/form\nADD $URL /x')).toEqual(['http://legacy/form']);
    expect(urls('FROM scratch\nARG URL=http://arg/\nENV URL=http://env/\nADD $URL /x', { URL: 'http://given/' })).toEqual(['http://env/']);
    expect(urls('FROM scratch AS one\nENV U=http://s/\nFROM one\nADD $U /x')).toEqual(['http://s/']);
    expect(urls('FROM scratch\nARG H=a\nENV URL="http://$H/" OTHER=x\nADD $URL /x')).toEqual(['http://a/']);
  });

  it("leaves unresolved what the base image's ENV may set, where it could make a URL", () => {
    const dockerfile = ['FROM busybox', 'ARG URL=http://arg/', 'ADD $URL /x', 'ADD ${X}/y /y', 'ADD /src/$X /z', 'ADD http$S://a/ /w'].join(
      '\n',
    );
    // the image's ENV URL would win over the ARG's default
    expect(dockerfileFetches(dockerfile, { URL: 'http://given/' })).toEqual({ urls: [], unresolved: ['$URL', '${X}/y', 'http$S://a/'] });
    expect(unresolved('ARG BASE\nFROM $BASE\nENV A=/src\nADD $A/$B /x')).toEqual([]);
    expect(unresolved('FROM busybox AS one\nFROM one\nADD $U /x')).toEqual(['$U']);
  });

  it('leaves unresolved the expansions it does not follow and what the lexer refuses', () => {
    expect(unresolved('FROM scratch\nADD ${X/*/http://evil} /y')).toEqual(['${X/*/http://evil}']);
    expect(unresolved('FROM scratch\nARG X=vhttp://a/\nADD ${X#v} /y')).toEqual(['${X#v}']);
    expect(unresolved('FROM scratch\nADD "http://open /y')).toEqual(['"http://open']);
    expect(unresolved('FROM scratch\nENV ${K/a/b}=http://a/\nADD $ANY /y')).toEqual(['$ANY']);
    // an unset name is an empty one: it sets no variable a source uses
    expect(unresolved('FROM scratch\nENV $K=http://a/\nADD $ANY /y')).toEqual([]);
  });

  it('expands an unset variable to nothing, and a lone $ to itself', () => {
    expect(dockerfileFetches('FROM scratch\nADD http://a/$UNSET /x\nADD $ /y', {})).toEqual({ urls: ['http://a/'], unresolved: [] });
  });
});
