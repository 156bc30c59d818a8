import { asObject, hostConfigOf, type CreateBody, type Json, type JsonObject } from './model.js';
import { HOST_CONFIG_DAEMON_DEFAULTS, HOST_CONFIG_DEFAULTS } from './templates.js';

const isEmpty = (value: Json | undefined): boolean => value === undefined || value === null || value === '' || value === 0;

/** The HostConfig a real engine reports for a create request: the request over Go defaults, then dockerd's own fill-ins. */
export function effectiveHostConfig(body: CreateBody): JsonObject {
  const config: JsonObject = { ...HOST_CONFIG_DEFAULTS, ...hostConfigOf(body) };
  for (const [key, value] of Object.entries(HOST_CONFIG_DAEMON_DEFAULTS)) if (isEmpty(config[key])) config[key] = value;
  const log = asObject(config['LogConfig']);
  config['LogConfig'] = { Type: (log?.['Type'] as string | undefined) || 'json-file', Config: asObject(log?.['Config']) ?? {} };
  const restart = asObject(config['RestartPolicy']);
  config['RestartPolicy'] = {
    Name: (restart?.['Name'] as string | undefined) || 'no',
    MaximumRetryCount: restart?.['MaximumRetryCount'] ?? 0,
  };
  if (config['PortBindings'] === null) config['PortBindings'] = {};
  // dockerd turns "unset" sentinels back into null
  if (config['MemorySwappiness'] === -1) config['MemorySwappiness'] = null;
  if (typeof config['PidsLimit'] === 'number' && config['PidsLimit'] <= 0) config['PidsLimit'] = null;
  return config;
}
