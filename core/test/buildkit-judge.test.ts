import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { bytesField, str, stringEntry, varintField } from './protobuf-support.js';
import { controlSolveQuestion, gatewaySolveQuestion } from '../dist/api/buildkit/question.js';
import { engineControlSolve, engineGatewaySolve, engineReturn } from '../dist/api/buildkit/engine-messages.js';
import { readFields, stringMap } from '../dist/api/buildkit/protobuf-fields.js';
import { mapEntry, withMapEntries } from '../dist/api/buildkit/protobuf-writer.js';
import { readSolveRequest } from '../dist/api/buildkit/solve-request.js';
import { sessionAnswerJudge } from '../dist/api/buildkit/session-dockerfile.js';

/*
 * BuildKit's requests as access control judges and rewrites them (issue 43 item 1): what each asks
 * of the engine, read from the protobuf messages buildx sends, and the messages the engine gets.
 */

const entry = stringEntry;
const op = (...parts: Buffer[]) => Buffer.concat(parts);
const definition = (field: number, ...ops: Buffer[]) => bytesField(field, Buffer.concat(ops.map((o) => bytesField(1, o))));

type Admitted = {
  action: string;
  config: { HostConfig?: Record<string, unknown> };
  source?: { url: string };
  fetches?: Array<{ from: string; url: string; unresolved?: string }>;
};

/** A request context as the judge reads it: alice of team-a, scoped, with an admission that records and refuses `refuse`. */
function context(refuse: (question: Admitted) => string | undefined = () => undefined) {
  const asked: Admitted[] = [];
  const ctx = {
    access: { caller: { user: 'alice', groups: ['team-a'], method: 'TLS' }, scoped: true, sees: () => true },
    api: {
      access: {
        enforcing: true,
        admit: async (question: Admitted) => {
          asked.push(question);
          const refusal = refuse(question);
          if (refusal) throw new Error(refusal);
          return question.config;
        },
      },
      cluster: { nodes: () => [], capabilities: {} },
    },
  };
  return { ctx: ctx as never, asked };
}

describe('what a BuildKit build asks of the engine', () => {
  it('reads the entitlements, the frontend options and the LLB steps as the RUN container and the URLs fetched', () => {
    const exec = op(
      bytesField(
        2,
        Buffer.concat([
          bytesField(1, Buffer.concat([str(10, '/docker'), bytesField(6, Buffer.concat([str(1, 'meta'), str(2, '169.254.169.254')]))])),
          varintField(3, 1),
          varintField(4, 1),
        ]),
      ),
    );
    const http = op(bytesField(3, str(1, 'https://example.com/a.tar')));
    const message = Buffer.concat([
      str(1, 'ref'),
      definition(2, exec, http),
      str(5, 'session'),
      entry(7, 'force-network-mode', 'none'),
      entry(7, 'add-hosts', 'db=10.0.0.1'),
      entry(7, 'context', 'https://github.com/org/repo.git'),
      entry(7, 'context:base', 'docker-image://busybox:1'),
      str(9, 'network.host'),
      str(9, 'security.insecure'),
    ]);
    const asked = controlSolveQuestion(readFields(message));
    expect(asked.host).toEqual({
      NetworkMode: 'host',
      Privileged: true,
      CgroupParent: '/docker',
      ExtraHosts: ['db:10.0.0.1', 'meta:169.254.169.254'],
    });
    expect(asked.urls).toEqual(['https://github.com/org/repo.git', 'https://example.com/a.tar']);
    expect(asked.images).toEqual(['busybox:1']);
  });

  it("reads a frontend's Solve (buildx's): --network host as force-network-mode, cgroup-parent", () => {
    const message = Buffer.concat([str(2, 'dockerfile.v0'), entry(3, 'force-network-mode', 'host'), entry(3, 'cgroup-parent', 'x')]);
    expect(gatewaySolveQuestion(readFields(message)).host).toEqual({ NetworkMode: 'host', CgroupParent: 'x' });
  });

  it("refuses a frontend's final solve, whose exporter attributes would give the image its config", () => {
    const message = Buffer.concat([str(2, 'dockerfile.v0'), varintField(10, 1), str(11, '{"containerimage.config":""}')]);
    expect(() => gatewaySolveQuestion(readFields(message))).toThrow(/final solve/);
  });

  it.each([
    ['a frontend image', Buffer.concat([str(6, 'gateway.v0'), entry(7, 'source', 'evil/frontend')])],
    ['dockerfilekey', entry(7, 'dockerfilekey', 'elsewhere')],
    ['a source policy', bytesField(12, str(1, 'x'))],
    ['an unknown entitlement', str(9, 'device')],
    ['a build op', definition(2, op(bytesField(5, str(1, 'x'))))],
    ['an unknown source', definition(2, op(bytesField(3, str(1, 'blob://x'))))],
    ['a Dockerfile as a frontend input', bytesField(10, Buffer.concat([str(1, 'dockerfile'), bytesField(2, Buffer.alloc(0))]))],
    ['a cache that fetches', bytesField(8, bytesField(5, str(1, 's3')))],
    ['an SBOM scanner', entry(7, 'attest:sbom', 'generator=scanner')],
  ])('refuses what it cannot judge: %s', (_, message) => {
    expect(() => controlSolveQuestion(readFields(message))).toThrow(/refused under swarm's access control/);
  });
});

describe('BuildKit messages as the engine gets them', () => {
  it('writes map entries back as gogo/protobuf reads them: the others kept, the new ones after', () => {
    const message = Buffer.concat([str(1, 'ref'), entry(7, 'a', '1'), str(5, 'session'), entry(7, 'b', '2')]);
    const changed = withMapEntries(
      message,
      7,
      new Map([
        ['b', 'two'],
        ['c', '3'],
      ]),
      (key) => key === 'a',
    );
    expect(readSolveRequest(changed)).toMatchObject({ ref: 'ref', session: 'session' });
    expect([...stringMap(readFields(changed), 7)]).toEqual([
      ['b', 'two'],
      ['c', '3'],
    ]);
    expect(mapEntry(7, 'k', 'v')).toEqual(entry(7, 'k', 'v'));
  });

  it('takes the placement directives out of the build args, without access control too', () => {
    const message = Buffer.concat([str(1, 'r'), entry(7, 'build-arg:constraint:node', '==n1'), entry(7, 'build-arg:A', 'b')]);
    const engine = engineControlSolve({ api: {} } as never, message);
    expect([...stringMap(readFields(engine), 7)]).toEqual([['build-arg:A', 'b']]);
  });

  it("gives a scoped caller's build the owner labels, pulled bases and the Dockerfile frontend without a syntax image", () => {
    const message = Buffer.concat([str(2, 'dockerfile.v0'), entry(3, 'label:com.docker.swarm.owner', 'bob'), entry(3, 'label:x', 'y')]);
    const engine = engineGatewaySolve(context().ctx, message);
    expect(Object.fromEntries(stringMap(readFields(engine), 3))).toEqual({
      'label:x': 'y',
      'label:com.docker.swarm.owner': 'alice',
      'label:com.docker.swarm.team': 'team-a',
      'image-resolve-mode': 'pull',
      cmdline: '',
    });
  });

  it('refuses a result that would make an image without a config (no owner labels), not an empty one', () => {
    const built = bytesField(1, bytesField(3, str(1, 'ref-id')));
    expect(() => engineReturn(context().ctx, built)).toThrow(/without an image config/);
    const empty = bytesField(1, bytesField(3, Buffer.alloc(0)));
    expect(engineReturn(context().ctx, empty)).toEqual(empty);
  });

  it("writes the owner labels into the image config a client's result hands the engine", () => {
    const config = JSON.stringify({ architecture: 'amd64', config: { Labels: { 'com.docker.swarm.team': 'team-b', x: 'y' } } });
    const result = Buffer.concat([
      bytesField(3, str(1, 'ref')),
      bytesField(10, Buffer.concat([str(1, 'containerimage.config'), str(2, config)])),
    ]);
    const engine = engineReturn(context().ctx, bytesField(1, result));
    const metadata = readFields(readFields(engine)[0]!.bytes).filter((field) => field.number === 10);
    const written = JSON.parse(readFields(metadata[0]!.bytes)[1]!.bytes.toString('utf8')) as { config: { Labels: Record<string, string> } };
    expect(written.config.Labels).toEqual({ x: 'y', 'com.docker.swarm.owner': 'alice', 'com.docker.swarm.team': 'team-a' });
  });
});

describe("the Dockerfile's ADD URLs, judged as it comes over the session", () => {
  const frame = (message: Buffer) => {
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(message.length, 1);
    return Buffer.concat([prefix, message]);
  };
  const stat = frame(Buffer.concat([varintField(1, 0), bytesField(2, str(1, 'Dockerfile'))]));
  const data = (text: string) => frame(Buffer.concat([varintField(1, 2), varintField(3, 0), bytesField(4, Buffer.from(text))]));
  const end = frame(Buffer.concat([varintField(1, 2), varintField(3, 0)]));
  const headers = { ':path': '/moby.filesync.v1.FileSync/DiffCopy', 'dir-name': 'dockerfile' };

  async function pass(refuse: (question: Admitted) => string | undefined, chunks: Buffer[]) {
    const { ctx, asked } = context(refuse);
    const judge = sessionAnswerJudge(ctx, headers, () => [{ SRC: 'http://x/arg' }])!;
    const out: Buffer[] = [];
    judge.on('data', (chunk: Buffer) => out.push(chunk));
    const failed = once(judge, 'error').then(([error]) => error as Error);
    for (const chunk of chunks) judge.write(chunk);
    judge.end();
    const outcome = await Promise.race([once(judge, 'end').then(() => undefined), failed]);
    return { outcome, out: Buffer.concat(out), asked };
  }

  it("holds a file's data until its last packet, then passes every packet on once its URLs are allowed", async () => {
    const dockerfile = 'FROM scratch\nARG SRC\nADD $SRC http://x/b /d/\n';
    const chunks = [stat, data(dockerfile.slice(0, 10)), data(dockerfile.slice(10)), end];
    const { outcome, out, asked } = await pass(() => undefined, chunks);
    expect(outcome).toBeUndefined();
    expect(out).toEqual(Buffer.concat(chunks));
    expect(asked.map((question) => question.fetches)).toEqual([
      [
        { from: 'ADD', url: 'http://x/arg' },
        { from: 'ADD', url: 'http://x/b' },
      ],
    ]);
  });

  it('ends the call with the refusal, and the engine never gets the Dockerfile', async () => {
    const { outcome, out } = await pass(
      (question) => (question.fetches?.some((fetch) => fetch.url === 'http://x/b') ? 'admission policy "baseline" forbids ADD' : undefined),
      [stat, data('FROM scratch\nADD http://x/b /b\n'), end],
    );
    expect(outcome?.message).toBe('admission policy "baseline" forbids ADD');
    expect(out).toEqual(stat);
  });

  it('refuses a Dockerfile of no build the manager judged (its build args are not known)', async () => {
    const { ctx } = context();
    const judge = sessionAnswerJudge(ctx, headers, () => undefined)!;
    const failed = once(judge, 'error');
    judge.write(Buffer.concat([stat, data('FROM scratch\n'), end]));
    const [error] = (await failed) as [Error];
    expect(error.message).toContain('a Dockerfile of no build the manager judged');
  });

  it("judges only the dockerfile directory's files", () => {
    const { ctx } = context();
    expect(sessionAnswerJudge(ctx, { ...headers, 'dir-name': 'context' }, () => [{}])).toBeUndefined();
  });
});
