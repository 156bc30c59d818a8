import { asBuildParameter } from './build-parameters.js';
import type { EngineFetch } from '@swarm/plugin-sdk/access';
import { isAllowedUrl, readFetchUrl, showUrl, type FetchUrl } from './fetch-urls.js';
import { textOf, type RuleContext } from './request-body.js';
import type { Rule, Violation } from './violation.js';

/**
 * `isolation`: a Linux engine knows only its default (`''`, or `default` in any case) and refuses
 * the rest; on a Windows engine, `process` or `hyperv` is the operator's choice, not a tenant's.
 */
export function isolationRule(context: RuleContext): Violation | undefined {
  const value = context.host.fields['Isolation'];
  if (value !== undefined && value !== null && typeof value !== 'string')
    return { rule: 'malformed', field: 'HostConfig.Isolation', detail: ': expected a string' };
  const isolation = textOf(context.host, 'Isolation');
  if (isolation === '' || isolation.toLowerCase() === 'default') return undefined;
  return { rule: 'isolation', field: 'HostConfig.Isolation', detail: `=${isolation}: only the engine's default isolation is allowed` };
}

/**
 * The URLs the engine would fetch for the caller (a build's `remote` and its Dockerfile's `ADD`
 * sources, an import's `fromSrc`), from its own place in the network (the engines' API, a cloud's
 * metadata endpoint): each only under an `allowedUrls` entry. One the host could not know (an
 * `ADD` source with a variable it cannot resolve, a Dockerfile it cannot read) is refused.
 */
export function fetchUrlRule(context: RuleContext): Violation | undefined {
  for (const fetch of context.fetches) {
    const violation = fetchViolation(fetch, context.settings.allowedUrls);
    if (violation) return violation;
  }
  return undefined;
}

function fetchViolation(fetch: EngineFetch, allowed: readonly FetchUrl[]): Violation | undefined {
  const field = fetch.from;
  if (fetch.unresolved !== undefined)
    return { rule: 'fetch-url', field, detail: `: the engine may fetch a URL that cannot be known here: ${fetch.unresolved}` };
  const reading = readFetchUrl(fetch.url);
  if ('problem' in reading) return { rule: 'fetch-url', field, detail: `: ${fetch.url} is refused: ${reading.problem}` };
  if (isAllowedUrl(reading.url, allowed)) return undefined;
  const where = allowed.length === 0 ? 'no URL is allowed (allowedUrls)' : `it is outside ${allowed.map(showUrl).join(', ')}`;
  return { rule: 'fetch-url', field, detail: `: the engine would fetch ${showUrl(reading.url)}: ${where}` };
}

/** A build's rule whose refusal names the query parameter (`networkmode=host`), not the HostConfig field it became. */
export function namingBuildParameters(rule: Rule<RuleContext>): Rule<RuleContext> {
  return (context) => {
    const violation = rule(context);
    return violation && { ...violation, field: asBuildParameter(violation.field) };
  };
}
