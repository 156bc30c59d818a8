import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import { messages, readFields, repeatedStrings, stringField, stringMap } from './protobuf-fields.js';

/**
 * What the manager reads of BuildKit's control requests (moby/buildkit api/services/control,
 * the `SolveRequest` and `StatusRequest` messages) to place a build and keep its calls together.
 */
export interface SolveRequest {
  /** The build's reference: its Status stream and its frontend's calls name it. */
  readonly ref: string;
  /** The session (`/session`) that brings the build's context, Dockerfile and credentials. */
  readonly session: string;
  readonly frontend: string;
  readonly frontendAttrs: ReadonlyMap<string, string>;
  readonly entitlements: readonly string[];
  /** The images the build's definition starts from, when it carries one (`docker-image://` sources). */
  readonly sourceImages: readonly string[];
  /** The image names the build exports to (`-t`). */
  readonly names: readonly string[];
}

// control.proto's SolveRequest field numbers.
const SOLVE = { ref: 1, definition: 2, exporterAttrs: 4, session: 5, frontend: 6, frontendAttrs: 7, entitlements: 9, exporters: 13 };
// ops.proto: Definition.def (each a marshalled Op), Op.source, SourceOp.identifier.
const DEFINITION_DEF = 1;
const OP_SOURCE = 3;
const SOURCE_IDENTIFIER = 1;
const DOCKER_IMAGE = 'docker-image://';

function definitionImages(definitions: readonly Buffer[]): string[] {
  const images: string[] = [];
  for (const definition of definitions) {
    for (const op of messages(readFields(definition), DEFINITION_DEF)) {
      for (const source of messages(readFields(op), OP_SOURCE)) {
        const identifier = stringField(readFields(source), SOURCE_IDENTIFIER);
        if (identifier.startsWith(DOCKER_IMAGE)) images.push(identifier.slice(DOCKER_IMAGE.length));
      }
    }
  }
  return images;
}

function exportNames(fields: ReturnType<typeof readFields>): string[] {
  const attrs = [
    stringMap(fields, SOLVE.exporterAttrs),
    ...messages(fields, SOLVE.exporters).map((exporter) => stringMap(readFields(exporter), 2)),
  ];
  return attrs.flatMap((map) => (map.get('name') ?? '').split(',').map((name) => name.trim())).filter((name) => name !== '');
}

export function readSolveRequest(message: Buffer): SolveRequest {
  const fields = readFields(message);
  const frontendAttrs = stringMap(fields, SOLVE.frontendAttrs);
  const namedContexts = [...frontendAttrs]
    .filter(([key, value]) => key.startsWith('context:') && value.startsWith(DOCKER_IMAGE))
    .map(([, value]) => value.slice(DOCKER_IMAGE.length));
  return {
    ref: stringField(fields, SOLVE.ref),
    session: stringField(fields, SOLVE.session),
    frontend: stringField(fields, SOLVE.frontend),
    frontendAttrs,
    entitlements: repeatedStrings(fields, SOLVE.entitlements),
    sourceImages: [...definitionImages(messages(fields, SOLVE.definition)), ...namedContexts],
    names: exportNames(fields),
  };
}

/** `StatusRequest.Ref`. */
export function readStatusRef(message: Buffer): string {
  return stringField(readFields(message), 1);
}

const BUILD_ARG = 'build-arg:';
const LABEL = 'label:';

/**
 * The config the scheduler places a BuildKit build with, as the classic build's: its build args as
 * the environment (`--build-arg constraint:node==node1` steers it, as in Swarm classic), its
 * labels, the image it names, and the images it starts from as soft affinities.
 */
export function solvePlacementConfig(solve: SolveRequest): ContainerConfig {
  const env: string[] = [];
  const labels: Record<string, string> = {};
  for (const [key, value] of solve.frontendAttrs) {
    if (key.startsWith(BUILD_ARG)) env.push(`${key.slice(BUILD_ARG.length)}=${value}`);
    else if (key.startsWith(LABEL)) labels[key.slice(LABEL.length)] = value;
  }
  for (const image of new Set(solve.sourceImages)) env.push(`affinity:image==~${image}`);
  return { Image: solve.names[0] ?? '', Env: env, Labels: labels };
}
