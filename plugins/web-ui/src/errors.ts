import { ErrorCodes, defineError } from '@swarm/plugin-sdk';

/** Every error the web view raises (answered as the Docker API answers errors: `{"message": ...}`). */
export const UiErrors = {
  unknownSetting: defineError('ui.setting.unknown', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { key: string; known: readonly string[] }) => `unknown setting ui.${p.key}; known: ${p.known.join(', ')}`,
  }),
  readOnlyNotBoolean: defineError('ui.setting.read-only', {
    code: ErrorCodes.CONFIG_INVALID,
    message: (p: { value: unknown }) => `ui.readOnly must be true or false, got ${JSON.stringify(p.value)}`,
  }),
  noSuchContainer: defineError('ui.container.missing', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { id: string }) => `No such container: ${p.id}`,
  }),
  noSuchFile: defineError('ui.file.missing', {
    code: ErrorCodes.NOT_FOUND,
    message: (p: { path: string }) => `no such file: ${p.path}`,
  }),
  explainBody: defineError('ui.explain.body', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'the body must be {"args": ["-m", "1g", "IMAGE", ...]} (docker run options) or {"container": "<id>"}',
  }),
  explainNothing: defineError('ui.explain.empty', {
    code: ErrorCodes.INVALID_ARGUMENT,
    message: () => 'type docker run options and an image, e.g. -m 1g -e constraint:zone==a nginx',
  }),
  pageNotBuilt: defineError('ui.page.not-built', {
    code: ErrorCodes.PLUGIN_LOAD_FAILED,
    message: (p: { file: string }) => `the web view's page is not built (no ${p.file}): run npm run build`,
  }),
} as const;
