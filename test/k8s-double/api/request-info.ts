// What a request asks for, read from its path and method as the API server's RequestInfoFactory
// reads it: API group and version, namespace, resource, name, subresource and the verb.

export interface ResourceRequest {
  kind: 'resource';
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** get, list, watch, create, update, patch, delete, deletecollection (connect requests: get or create). */
  verb: string;
}

export interface NonResourceRequest {
  kind: 'nonResource';
  path: string;
  verb: string;
}

export type RequestInfo = ResourceRequest | NonResourceRequest;

const METHOD_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', GET: 'get', HEAD: 'get', DELETE: 'delete' };

/** FieldSelector.RequiresExactMatch("metadata.name"), kept only when a valid path segment (path.IsValidPathSegmentName). */
function exactName(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const match = /^\s*metadata\.name\s*(==?)\s*(.*?)\s*$/.exec(term);
    if (!match) continue;
    const name = match[2]!;
    if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
    return name;
  }
  return undefined;
}

/**
 * What the authorizer is asked: the request's info, where a list or watch asking for one name
 * (fieldSelector=metadata.name=x) carries that name, so a rule's resourceNames can allow it
 * (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go). Routing keeps the plain info.
 */
export function authorizationInfo(info: RequestInfo, query: URLSearchParams): RequestInfo {
  if (info.kind !== 'resource' || info.name !== undefined || (info.verb !== 'list' && info.verb !== 'watch')) return info;
  const name = exactName(query.get('fieldSelector'));
  return name === undefined ? info : { ...info, name };
}

export function requestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const nonResource = (): NonResourceRequest => ({
    kind: 'nonResource',
    path: pathname,
    verb: METHOD_VERBS[method] ?? method.toLowerCase(),
  });
  let rest: string[];
  let group = '';
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return nonResource();
  }
  let verb = METHOD_VERBS[method] ?? method.toLowerCase();
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    // namespaces/NAME is the namespace itself; namespaces/NAME/status|finalize its subresources
    if (rest.length === 2 || (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
      rest = ['namespaces', rest[1]!, ...rest.slice(2)];
    } else {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const [resource = '', name, subresource] = rest;
  if (rest.length > 3) return nonResource();
  const isWatch = watchPath || ['true', '1'].includes(query.get('watch') ?? '');
  if (verb === 'get' && !name) verb = isWatch ? 'watch' : 'list';
  else if (verb === 'get' && isWatch) verb = 'watch';
  if (verb === 'delete' && !name) verb = 'deletecollection';
  const info: ResourceRequest = { kind: 'resource', group, version, resource, verb };
  if (namespace !== undefined) info.namespace = namespace;
  if (name !== undefined) info.name = name;
  if (subresource !== undefined) info.subresource = subresource;
  return info;
}
