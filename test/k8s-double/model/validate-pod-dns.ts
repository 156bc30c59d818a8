// A pod's hostAliases and dnsConfig (what `docker run --add-host/--dns/--dns-search` become), as
// ValidateHostAliases and validatePodDNSConfig check them (pkg/apis/core/validation/validation.go),
// with apimachinery's IsValidIP (pkg/util/validation/ip.go: ParseIPSloppy, so IPv4 parts may have
// leading zeros).
import { isIPv6 } from 'node:net';
import { fieldError, goStrings, type FieldError, type FieldPath } from './field-errors.js';
import { byteLength, isDNS1123Subdomain } from './names.js';
import type { Loose } from './loose.js';

const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;

const sloppyIPv4 = (value: string): boolean => {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((part) => /^[0-9]{1,3}$/.test(part) && Number(part) <= 255);
};
const isIP = (value: string): boolean => sloppyIPv4(value) || isIPv6(value);

function validIP(at: string, value: string): FieldError[] {
  return isIP(value) ? [] : [fieldError.invalid(at, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

function subdomain(at: string, value: string): FieldError[] {
  return isDNS1123Subdomain(value).map((message) => fieldError.invalid(at, value, message));
}

export function validateHostAliases(aliases: Loose[] | undefined, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (aliases ?? []).forEach((alias, i) => {
    errors.push(...validIP(at.index(i).child('ip').toString(), alias.ip ?? ''));
    ((alias.hostnames ?? []) as string[]).forEach((hostname, j) =>
      errors.push(...subdomain(at.index(i).child('hostnames').index(j).toString(), hostname)),
    );
  });
  return errors;
}

export function validatePodDNSConfig(config: Loose | undefined, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!config) return errors;
  const nameservers = (config.nameservers ?? []) as string[];
  if (nameservers.length > MAX_NAMESERVERS) {
    errors.push(
      fieldError.invalid(
        at.child('nameservers').toString(),
        goStrings(nameservers),
        `must not have more than ${MAX_NAMESERVERS} nameservers`,
      ),
    );
  }
  nameservers.forEach((server, i) => errors.push(...validIP(at.child('nameservers').index(i).toString(), server)));
  const searches = (config.searches ?? []) as string[];
  if (searches.length > MAX_SEARCH_PATHS) {
    errors.push(
      fieldError.invalid(at.child('searches').toString(), goStrings(searches), `must not have more than ${MAX_SEARCH_PATHS} search paths`),
    );
  }
  if (byteLength(searches.join(' ')) > MAX_SEARCH_LIST_CHARS) {
    errors.push(
      fieldError.invalid(
        at.child('searches').toString(),
        goStrings(searches),
        `must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
      ),
    );
  }
  // a trailing dot is fine
  searches.forEach((search, i) => errors.push(...subdomain(at.child('searches').index(i).toString(), search.replace(/\.$/, ''))));
  ((config.options ?? []) as Loose[]).forEach((option, i) => {
    if (!option.name) errors.push(fieldError.required(at.child('options').index(i).toString(), 'must not be empty'));
  });
  return errors;
}
