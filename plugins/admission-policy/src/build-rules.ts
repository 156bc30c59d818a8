import { asBuildParameter } from './build-parameters.js';
import { isAllowedUrl, readFetchUrl, showUrl } from './fetch-urls.js';
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
 * A URL the engine would fetch for the caller (`remote`, `fromSrc`), from its own place in the
 * network (the engines' API, a cloud's metadata endpoint): only under an `allowedUrls` entry.
 */
export function fetchUrlRule(context: RuleContext): Violation | undefined {
  const source = context.source;
  if (!source) return undefined;
  const reading = readFetchUrl(source.url);
  if ('problem' in reading) return { rule: 'fetch-url', field: source.parameter, detail: `: ${source.url} is refused: ${reading.problem}` };
  const allowed = context.settings.allowedUrls;
  if (isAllowedUrl(reading.url, allowed)) return undefined;
  const where = allowed.length === 0 ? 'no URL is allowed (allowedUrls)' : `it is outside ${allowed.map(showUrl).join(', ')}`;
  return { rule: 'fetch-url', field: source.parameter, detail: `: the engine would fetch ${showUrl(reading.url)}: ${where}` };
}

/** A build's rule whose refusal names the query parameter (`networkmode=host`), not the HostConfig field it became. */
export function namingBuildParameters(rule: Rule<RuleContext>): Rule<RuleContext> {
  return (context) => {
    const violation = rule(context);
    return violation && { ...violation, field: asBuildParameter(violation.field) };
  };
}
