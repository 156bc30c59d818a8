// The public surface of swarm's packages, as API reports (`<package>/api/<entry>.api.md`) made by
// Microsoft's api-extractor from the built `.d.ts` files. `node scripts/api-report.mjs` checks
// that the committed reports match the build (exit 1 and a diff when not); `--update` rewrites
// them. Review a change to a report as a change to the public API.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every package entry point a user imports: [package folder, report name, built .d.ts]. The SDK's
 * entries use each other's types (the contract uses the Docker wire types of `./docker`, `./web`
 * uses the contract's): api-extractor analyses one entry point at a time, so a type one SDK entry
 * uses and another exports is allowed as a "forgotten export".
 */
export const ENTRY_POINTS = [
  ['plugin-sdk', 'plugin-sdk', 'dist/index.d.ts'],
  ['plugin-sdk', 'plugin-sdk-docker', 'dist/types/docker.d.ts'],
  ['plugin-sdk', 'plugin-sdk-web', 'dist/web.d.ts'],
  ['plugin-sdk', 'plugin-sdk-access', 'dist/access.d.ts'],
  ['plugin-sdk', 'plugin-sdk-helpers', 'dist/helpers/index.d.ts'],
  ['plugin-sdk', 'plugin-sdk-testing', 'dist/testing/index.d.ts'],
  ['core', 'core', 'dist/index.d.ts'],
  ['plugins/driver-swarm', 'driver-swarm', 'dist/index.d.ts'],
  ['plugins/driver-mesos', 'driver-mesos', 'dist/index.d.ts'],
  ['plugins/driver-kubernetes', 'driver-kubernetes', 'dist/index.d.ts'],
];

const QUIET = { logLevel: 'none' };

function configFor(folder, name, entry, tempFolder) {
  const projectFolder = join(ROOT, folder);
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder,
      mainEntryPointFilePath: join(projectFolder, entry),
      compiler: { tsconfigFilePath: join(projectFolder, 'tsconfig.json') },
      apiReport: { enabled: true, reportFolder: join(projectFolder, 'api'), reportTempFolder: tempFolder, reportFileName: name },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning' },
          // swarm does not tag releases (@public, @beta): every exported name is public
          'ae-missing-release-tag': QUIET,
          // documentation is reviewed in the report itself (`// (undocumented)` marks)
          'ae-undocumented': QUIET,
          // reported below, where the SDK's subpaths may use the contract's types
          'ae-forgotten-export': { logLevel: 'warning', addToApiReportFile: false },
        },
        tsdocMessageReporting: { default: QUIET },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(projectFolder, 'package.json'),
  });
}

/**
 * The SDK's main entry is the contract a plugin author holds in their head: at most this many
 * names. Whatever else a plugin may use goes to a subpath (`./helpers`, `./testing`, `./docker`,
 * `./web`), each with its own report.
 */
export const CONTRACT_BUDGET = 80;

/** Names a report lists (`export function name`, `export interface Name`, ...). */
export function exportedNames(reportText) {
  return new Set(
    [...reportText.matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum|namespace) (\w+)/gm)].map(
      (match) => match[1],
    ),
  );
}

const FORGOTTEN = /The symbol "(\w+)" needs to be exported/;

/**
 * Runs api-extractor on every entry point; returns what needs attention: reports that differ from
 * the committed ones, and problems (a public type that is not exported, a compiler error).
 */
export function checkReports({ update = false, report = console.log } = {}) {
  const tempFolder = mkdtempSync(join(tmpdir(), 'swarm-api-report-'));
  const changed = [];
  const reports = new Map();
  /** Per entry: the names it uses without exporting, and where api-extractor said so. */
  const forgotten = [];
  try {
    for (const [folder, name, entry] of ENTRY_POINTS) {
      let problems = 0;
      const config = configFor(folder, name, entry, tempFolder);
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback: (message) => {
          message.handled = true;
          if (message.logLevel !== 'warning' && message.logLevel !== 'error') return;
          if (message.messageId === 'console-api-report-created' || message.messageId === 'console-api-report-copied') return;
          const symbol = message.messageId === 'ae-forgotten-export' ? FORGOTTEN.exec(message.text)?.[1] : undefined;
          if (symbol !== undefined && folder === 'plugin-sdk') {
            forgotten.push({ name, symbol, text: message.formatMessageWithLocation(ROOT) });
            return;
          }
          problems++;
          report(`${name}: ${message.formatMessageWithLocation(ROOT)}`);
        },
      });
      reports.set(name, readFileSync(update ? config.reportFilePath : config.reportTempFilePath, 'utf8'));
      if (result.apiReportChanged) changed.push(`${folder}/api/${name}.api.md`);
      if (problems > 0) changed.push(`${name}: ${problems} problems (see above)`);
    }
    changed.push(...sdkProblems(reports, forgotten, report));
  } finally {
    rmSync(tempFolder, { recursive: true, force: true });
  }
  return changed;
}

/** A type one SDK entry uses must be exported by another; the main entry keeps to its budget. */
function sdkProblems(reports, forgotten, report) {
  const problems = [];
  const sdkNames = new Set();
  for (const [name, text] of reports) if (name.startsWith('plugin-sdk')) for (const exported of exportedNames(text)) sdkNames.add(exported);
  for (const { name, symbol, text } of forgotten) {
    if (sdkNames.has(symbol)) continue;
    report(`${name}: ${text}`);
    problems.push(`${name}: "${symbol}" is used but no SDK entry exports it`);
  }
  const overBudget = budgetProblem(reports.get('plugin-sdk') ?? '');
  if (overBudget !== undefined) {
    report(overBudget);
    problems.push(overBudget);
  }
  return problems;
}

/** What is wrong with the SDK main entry's report, name-wise: more names than CONTRACT_BUDGET. */
export function budgetProblem(reportText) {
  const count = exportedNames(reportText).size;
  if (count <= CONTRACT_BUDGET) return undefined;
  return `plugin-sdk: the main entry exports ${count} names, over its budget of ${CONTRACT_BUDGET}; move what only some plugins need to a subpath`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const update = process.argv.includes('--update');
  const changed = checkReports({ update });
  if (changed.length === 0) console.log('API reports match the build.');
  else if (update) console.log(`API reports updated:\n  ${changed.join('\n  ')}`);
  else {
    console.error(`The public API changed; review and commit with \`npm run api:update\`:\n  ${changed.join('\n  ')}`);
    process.exitCode = 1;
  }
}
