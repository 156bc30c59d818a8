import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILD_PARAMETERS, IMPORT_PARAMETERS, ruleNamesFor, type JudgedLevel, type ParameterTreatment } from '@swarm/admission-policy';

/** The Engine API's swagger per version and action (scripts/swagger-fields.mjs's output): `?name` is a query parameter. */
const SWAGGER = JSON.parse(readFileSync(new URL('../scripts/swagger-fields.json', import.meta.url), 'utf8')) as Record<
  string,
  Record<string, string[]>
>;

/** What dockerd's build route reads that the swagger does not document (moby's newImageBuildOptions). */
const UNDOCUMENTED_BUILD = ['cgroupparent', 'isolation', 'ulimits', 'securityopt', 'cpusetmems', 'session', 'buildid', 'version'];
/** What dockerd's image create route reads that the 1.41 swagger does not document (`changes`, documented later). */
const UNDOCUMENTED_IMPORT = ['changes'];

const TABLES: ReadonlyArray<readonly ['image.build' | 'image.import', Readonly<Record<string, ParameterTreatment>>, readonly string[]]> = [
  ['image.build', BUILD_PARAMETERS, UNDOCUMENTED_BUILD],
  ['image.import', IMPORT_PARAMETERS, UNDOCUMENTED_IMPORT],
];
const LEVELS: readonly JudgedLevel[] = ['baseline', 'restricted'];

const parametersOf = (version: string, action: string): string[] =>
  (SWAGGER[version]![action] ?? []).filter((path) => path.startsWith('?')).map((path) => path.slice(1));

describe('the build and import parameter tables against the Engine API', () => {
  it.each(Object.keys(SWAGGER).flatMap((version) => TABLES.map(([action, table]) => [version, action, table] as const)))(
    'classify every query parameter of %s %s',
    (version, action, table) => {
      const parameters = parametersOf(version, action);
      expect(parameters.length).toBeGreaterThan(0);
      expect(parameters.filter((name) => !(name in table))).toEqual([]);
    },
  );

  it.each(TABLES)(
    '%s has no row that neither the swagger nor dockerd reads (a misspelt name classifies nothing)',
    (action, table, extra) => {
      const known = new Set([...Object.keys(SWAGGER).flatMap((version) => parametersOf(version, action)), ...extra]);
      expect(Object.keys(table).filter((name) => !known.has(name))).toEqual([]);
    },
  );

  it.each(TABLES)('%s: every rule a row names is one baseline and restricted apply to the action', (action, table) => {
    for (const level of LEVELS) {
      const applied = ruleNamesFor(level, action);
      for (const [name, treatment] of Object.entries(table)) {
        if (treatment.kind === 'judged') expect(applied, `${name} at ${level}`).toContain(treatment.rule);
        if (treatment.kind === 'fetched') expect(applied, `${name} at ${level}`).toContain('fetch-url');
      }
    }
  });

  it('maps each judged or limited build parameter to its own HostConfig field', () => {
    const fields = Object.values(BUILD_PARAMETERS).flatMap((treatment) =>
      treatment.kind === 'judged' || treatment.kind === 'limit' ? [treatment.field] : [],
    );
    expect(fields.every((field) => /^HostConfig\.[A-Z][A-Za-z]+$/.test(field))).toBe(true);
    expect(new Set(fields).size).toBe(fields.length);
  });
});
