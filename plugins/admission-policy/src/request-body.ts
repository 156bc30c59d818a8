import type { AdmissionRequest, EngineFetch } from '@swarm/plugin-sdk/access';
import type { JudgedLevel } from './field-treatment.js';
import type { PolicySettings } from './options.js';

type Fields = Readonly<Record<string, unknown>>;

/** A part of the body with its path prefix (`HostConfig.`), so rules name fields as Docker does. */
export interface BodyPart {
  readonly fields: Fields;
  readonly prefix: string;
}

/** What the rules read: the body, its HostConfig, and where resource fields sit. */
export interface RuleContext {
  readonly body: Fields;
  /** `HostConfig`, `{}` when absent. */
  readonly host: BodyPart;
  /**
   * Where resource fields (limits, devices) sit: `HostConfig`; in an update also the body's top
   * level, where Docker's own update body has them (the host merges an update into the
   * container's HostConfig, but a rule must not miss a limit sent either way).
   */
  readonly resources: readonly BodyPart[];
  readonly settings: PolicySettings;
  /**
   * `image.build`, `image.import`: the URLs the engine would fetch for the caller: the host's
   * `fetches` (plugin API 2.3), or from a host before 2.3 its `source`.
   */
  readonly fetches: readonly EngineFetch[];
  /** The caller's level (rules run only for baseline and restricted). */
  readonly level: JudgedLevel;
  /** `network.create`: the network's create body, `{}` for other actions. */
  readonly network: Fields;
}

/** An object field's value, `{}` when absent, null or not an object. */
export function record(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

export function ruleContext(request: AdmissionRequest, settings: PolicySettings, level: JudgedLevel): RuleContext {
  const body = record(request.config);
  const host = { fields: record(body['HostConfig']), prefix: 'HostConfig.' };
  const resources = request.action === 'container.update' ? [{ fields: body, prefix: '' }, host] : [host];
  const network = record(request.network);
  const source = request.source;
  const fetches = request.fetches ?? (source ? [{ from: source.parameter, url: source.url }] : []);
  return { body, host, resources, settings, level, network, fetches };
}

/** A string value, `''` when absent or of another type. */
export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A list field whose shape `shapeRule` has checked: its items, `[]` when absent or null. */
export function listOf<T>(part: BodyPart, key: string): readonly T[] {
  const value = part.fields[key];
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A string field, `''` when absent or null. */
export function textOf(part: BodyPart, key: string): string {
  const value = part.fields[key];
  return typeof value === 'string' ? value : '';
}

/** A number field, undefined when absent or null. */
export function numberOf(part: BodyPart, key: string): number | undefined {
  const value = part.fields[key];
  return typeof value === 'number' ? value : undefined;
}

/** A string map (`Sysctls`, a volume's driver options), `{}` when absent or null. */
export function mapOf(part: BodyPart, key: string): Readonly<Record<string, string>> {
  return record(part.fields[key]) as Readonly<Record<string, string>>;
}
