import { describe, expect, it } from 'vitest';
import { changesFetches, dockerfileFetches } from '../dist/access/dockerfile-fetches.js';
import { triggerFetches, UNRESOLVED } from '../dist/api/build-fetches.js';

/*
 * The `changes` of a commit or import as dockerd reads them (moby's BuildFromConfig: the entries
 * joined by newlines into one Dockerfile), and the `OnBuild` triggers an image gets as they are
 * (each parsed as a Dockerfile of its own by the builds on the image): the URLs those builds would
 * fetch, and the sources that could be URLs whose variables only those builds know.
 */

const urls = (changes: string[], triggers: string[] = []) => changesFetches(changes, triggers).urls;
const unresolved = (changes: string[], triggers: string[] = []) => changesFetches(changes, triggers).unresolved;

describe('changesFetches: ONBUILD ADD in changes', () => {
  it('finds the URLs of ONBUILD ADD, in any case, with flags and in the JSON form', () => {
    expect(
      urls([
        'ONBUILD ADD http://127.0.0.1:2375/containers/x/json /x',
        'onbuild add --chown=1:1 --checksum=sha256:00 https://a/b /y',
        'OnBuild Add ["http://c/", "http://d/", "/z/"]',
      ]),
    ).toEqual(['http://127.0.0.1:2375/containers/x/json', 'https://a/b', 'http://c/', 'http://d/']);
  });

  it('reads the entries as one Dockerfile: an entry of two lines is two instructions, continued lines one', () => {
    expect(urls(['ONBUILD ADD http://a/ /x\nONBUILD ADD http://b/ /y'])).toEqual(['http://a/', 'http://b/']);
    expect(urls(['# escape=`', 'ONBUILD ADD http://a/`', 'b /x'])).toEqual(['http://a/b']);
  });

  it("expands a trigger's words with either escape character: the later build's lexer has its Dockerfile's", () => {
    // `http://ok\@evil/` under the backtick is a path below http://ok/; under the backslash, a host
    expect(urls(['# escape=`', 'ONBUILD ADD http://ok\\@evil/ /x'])).toEqual(['http://ok@evil/', 'http://ok\\@evil/']);
    expect(urls(['ONBUILD ADD http://a/`@b/ /x'])).toEqual(['http://a/`@b/', 'http://a/@b/']);
  });

  it("reads a Dockerfile's own ONBUILD ADD the same way", () => {
    const dockerfile = '# escape=`\nFROM scratch\nONBUILD ADD http://ok\\@evil/ /x\n';
    expect(dockerfileFetches(dockerfile, {}).urls).toEqual(['http://ok@evil/', 'http://ok\\@evil/']);
  });

  it('leaves every variable of a trigger unknown: the builds on the image expand it, ENV of the changes or not', () => {
    expect(changesFetches(['ENV URL=http://a', 'ONBUILD ADD ${URL}/x /x', 'ONBUILD ADD /src/$ANY /y'], [])).toEqual({
      urls: [],
      unresolved: ['${URL}/x'],
    });
    expect(unresolved(['ONBUILD ADD $U /x', 'ONBUILD ADD http://$HOST/ /y'])).toEqual(['$U', 'http://$HOST/']);
  });

  it('finds nothing in changes that make no later build fetch', () => {
    expect(
      changesFetches(
        [
          'CMD ["wget", "http://a/"]',
          'LABEL url=http://b/',
          'ENV URL=http://c/',
          'ONBUILD COPY http://d/ /x',
          'ONBUILD RUN wget http://e/',
          'ONBUILD ADD ./local /x',
          'ONBUILD ADD http://only-source',
        ],
        [],
      ),
    ).toEqual({ urls: [], unresolved: [] });
  });

  it('reads a heredoc body both ways: an ONBUILD ADD in one is not hidden', () => {
    expect(urls(['ONBUILD RUN <<EOF', 'ONBUILD ADD http://hidden/ /x', 'EOF'])).toEqual(['http://hidden/']);
  });
});

describe('changesFetches: triggers given as they are (a commit body, a container config)', () => {
  it('reads each trigger as the instruction a later build runs', () => {
    expect(urls([], ['ADD http://t/ /x', 'add ["https://u/", "/y"]', 'RUN wget http://no/', 'COPY http://no/ /z'])).toEqual([
      'http://t/',
      'https://u/',
    ]);
    expect(unresolved([], ['ADD ${X}/y /y'])).toEqual(['${X}/y']);
  });

  it('a trigger of several lines is read line by line, none hidden; an ONBUILD in one is a trigger for the builds after', () => {
    expect(urls([], ['RUN true\nADD http://second/ /x'])).toEqual(['http://second/']);
    expect(urls([], ['ONBUILD ADD http://after/ /x'])).toEqual(['http://after/']);
  });
});

describe('triggerFetches: as the admission controllers get them', () => {
  it("gives ADD fetches, the unresolved with the builds' reason", () => {
    expect(triggerFetches(['ONBUILD ADD http://a/ /x', 'ONBUILD ADD $U /y'])).toEqual([
      { from: 'ADD', url: 'http://a/' },
      { from: 'ADD', url: '$U', unresolved: `$U ${UNRESOLVED}` },
    ]);
    expect(triggerFetches(['CMD ["true"]'])).toEqual([]);
  });
});
