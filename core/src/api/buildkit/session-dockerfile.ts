import type { IncomingHttpHeaders } from 'node:http2';
import { Transform, type TransformCallback } from 'node:stream';
import type { EngineFetch } from '@swarm/plugin-sdk/access';
import { dockerfileFetches } from '../../access/dockerfile-fetches.js';
import { baseTriggerFetches, UNRESOLVED } from '../build-fetches.js';
import { CoreErrors } from '../../errors.js';
import type { RequestContext } from '../context.js';
import { admitBuildKit } from './admission.js';
import { ProtobufError, readFields, varintField } from './protobuf-fields.js';

/*
 * A BuildKit build's Dockerfile comes over its session: the engine calls the client's
 * `moby.filesync.v1.FileSync/DiffCopy` with the metadata `dir-name: dockerfile` (the dockerfile
 * frontend's directory for it), and the client answers with fsutil's packets: a STAT per file,
 * then, for each file the engine asks for, DATA packets ending with an empty one. Under access
 * control the manager holds a file's data until its last packet, reads the file as a Dockerfile
 * and judges the URLs its `ADD` instructions make the engine fetch, as a classic build's are
 * (build-fetches.ts); a refusal ends the call with it, and the engine never has the Dockerfile.
 */

const DIFF_COPY = '/moby.filesync.v1.FileSync/DiffCopy';
const TAR_STREAM = '/moby.filesync.v1.FileSync/TarStream';
const DOCKERFILE_DIR = 'dockerfile';
/** The largest Dockerfile read (BuildKit's own limit on a Dockerfile is far above any real one). */
const MAX_DOCKERFILE_BYTES = 4 * 1024 * 1024;

// fsutil's types.Packet: type (1, PACKET_DATA = 2), ID (3), data (4).
const PACKET = { type: 1, id: 3, data: 4 };
const PACKET_DATA = 2;

async function judgeDockerfile(ctx: RequestContext, dockerfile: string, buildArgs: ReadonlyArray<Record<string, string>>): Promise<void> {
  // with each set of build args the session's builds asked for: the frontend reads it with one of them
  const urls = new Set<string>();
  const unresolved = new Set<string>();
  for (const args of buildArgs) {
    const fetches = dockerfileFetches(dockerfile, args);
    for (const url of fetches.urls) urls.add(url);
    for (const source of fetches.unresolved) unresolved.add(source);
  }
  const fetches: EngineFetch[] = [
    ...[...urls].map((url): EngineFetch => ({ from: 'ADD', url })),
    ...[...unresolved].map((source): EngineFetch => ({ from: 'ADD', url: source, unresolved: `${source} ${UNRESOLVED}` })),
    // a caller with a narrower view builds on what the registry holds (image-resolve-mode=pull),
    // whose triggers are the registry's; anyone else's bases are the engine's, with the triggers it keeps
    ...(ctx.access?.scoped ? [] : await baseTriggerFetches(ctx, dockerfile)),
  ];
  if (fetches.length > 0) await admitBuildKit(ctx, { host: {}, urls: [], images: [] }, fetches);
}

/** Holds each file's DATA packets of a DiffCopy answer until the file is whole, and judges it as a Dockerfile. */
class DockerfileJudge extends Transform {
  private pending = Buffer.alloc(0);
  private held: Buffer[] = [];
  private readonly open = new Map<number, Buffer[]>();
  private size = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly buildArgs: () => ReadonlyArray<Record<string, string>> | undefined,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    this.drain().then(
      () => done(),
      (error: unknown) =>
        done(error instanceof Error ? error : CoreErrors.buildkitNotJudged({ what: 'a Dockerfile', instead: String(error) })),
    );
  }

  override _flush(done: TransformCallback): void {
    if (this.pending.length > 0 || this.open.size > 0) {
      done(CoreErrors.buildkitNotJudged({ what: 'a Dockerfile that ended before its last packet', instead: 'send it whole' }));
      return;
    }
    for (const frame of this.held) this.push(frame);
    this.held = [];
    done();
  }

  private async drain(): Promise<void> {
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + length) return;
      if (this.pending[0] !== 0) {
        throw CoreErrors.buildkitNotJudged({ what: 'a compressed session answer', instead: 'send the Dockerfile uncompressed' });
      }
      const frame = this.pending.subarray(0, 5 + length);
      this.pending = this.pending.subarray(5 + length);
      await this.packet(frame);
    }
  }

  private async packet(frame: Buffer): Promise<void> {
    let fields;
    try {
      fields = readFields(frame.subarray(5));
    } catch (error) {
      if (error instanceof ProtobufError)
        throw CoreErrors.buildkitNotJudged({ what: 'a session answer that is not fsutil packets', instead: '' });
      throw error;
    }
    this.held.push(frame);
    if (varintField(fields, PACKET.type) === PACKET_DATA) {
      const id = varintField(fields, PACKET.id);
      const data = fields.filter((field) => field.number === PACKET.data && field.wireType === 2).map((field) => field.bytes);
      const bytes = data.reduce((sum, part) => sum + part.length, 0);
      if (bytes > 0) {
        this.size += bytes;
        if (this.size > MAX_DOCKERFILE_BYTES) {
          throw CoreErrors.buildkitNotJudged({ what: `a Dockerfile over ${MAX_DOCKERFILE_BYTES} bytes`, instead: 'make it smaller' });
        }
        this.open.set(id, [...(this.open.get(id) ?? []), ...data]);
      } else {
        const whole = Buffer.concat(this.open.get(id) ?? []);
        this.open.delete(id);
        const args = this.buildArgs();
        // the build args decide what an ADD fetches: a Dockerfile of no build judged here cannot be read
        if (!args)
          throw CoreErrors.buildkitNotJudged({
            what: 'a Dockerfile of no build the manager judged',
            instead: 'start the build through the manager',
          });
        await judgeDockerfile(this.ctx, whole.toString('utf8'), args);
      }
    }
    if (this.open.size === 0) {
      for (const held of this.held) this.push(held);
      this.held = [];
    }
  }
}

/** A session call's answer as the engine gets it: under access control, the Dockerfile's judged first. */
export function sessionAnswerJudge(
  ctx: RequestContext,
  headers: IncomingHttpHeaders,
  buildArgs: () => ReadonlyArray<Record<string, string>> | undefined,
): Transform | undefined {
  const path = String(headers[':path'] ?? '');
  const dir = headers['dir-name'];
  const dirs = Array.isArray(dir) ? dir : [dir ?? ''];
  if (path === TAR_STREAM && dirs.includes(DOCKERFILE_DIR)) {
    const refuse = new Transform({
      transform: (_chunk, _encoding, done) =>
        done(
          CoreErrors.buildkitNotJudged({
            what: "a Dockerfile sent as a tar stream (BuildKit's oldest file transfer)",
            instead: 'use a newer client',
          }),
        ),
    });
    return refuse;
  }
  return path === DIFF_COPY && dirs.includes(DOCKERFILE_DIR) ? new DockerfileJudge(ctx, buildArgs) : undefined;
}
