/** The version of the plugin API this SDK describes. Plugins declare a semver range against it. */
export const PLUGIN_API_VERSION = '2.3.0';
