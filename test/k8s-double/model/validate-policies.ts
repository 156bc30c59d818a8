// PodDisruptionBudget and NetworkPolicy specs as the 1.32 API server checks them
// (pkg/apis/policy/validation, pkg/apis/networking/validation, apimachinery's
// ValidateLabelSelector and apps' int-or-percent checks), with their v1 defaults.
import { isIPv4, isIPv6 } from 'node:net';
import { fieldError, GoLiteral, path, type FieldError, type FieldPath } from './field-errors.js';
import { isQualifiedName, isValidLabelValue, isValidPortName, isValidPortNumber, regexError } from './names.js';
import { validateLabels } from './validate-labels.js';
import type { Loose } from './loose.js';

type Errors = FieldError[];
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }>;
}

/** metav1 ValidateLabelSelector, without AllowInvalidLabelValueInSelector (new objects). */
export function validateLabelSelector(selector: Selector | undefined, at: FieldPath): Errors {
  if (!selector) return [];
  const errors = validateLabels(selector.matchLabels, at.child('matchLabels'));
  for (const [i, requirement] of (selector.matchExpressions ?? []).entries()) {
    const here = at.child('matchExpressions').index(i);
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          errors.push(fieldError.required(here.child('values').toString(), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          errors.push(
            fieldError.forbidden(here.child('values').toString(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        errors.push(fieldError.invalid(here.child('operator').toString(), requirement.operator ?? '', 'not a valid selector operator'));
    }
    for (const message of isQualifiedName(requirement.key ?? ''))
      errors.push(fieldError.invalid(here.child('key').toString(), requirement.key ?? '', message));
    for (const [j, value] of values.entries())
      for (const message of isValidLabelValue(value))
        errors.push(fieldError.invalid(here.child('values').index(j).toString(), value, message));
  }
  return errors;
}

/** An IntOrString as field.Error prints it (%#v of the struct). */
const intOrString = (value: number | string): GoLiteral =>
  typeof value === 'number'
    ? new GoLiteral(`intstr.IntOrString{Type:0, IntVal:${value}, StrVal:""}`)
    : new GoLiteral(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(value)}}`);

const PERCENT = '[0-9]+%';

/** apps ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function validateIntOrPercent(value: number | string, at: string): Errors {
  const errors: Errors = [];
  if (typeof value === 'number') {
    if (value < 0) errors.push(fieldError.invalid(at, value, 'must be greater than or equal to 0'));
    return errors;
  }
  if (!new RegExp(`^${PERCENT}$`).test(value)) {
    errors.push(
      fieldError.invalid(
        at,
        intOrString(value),
        regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT, '1%', '93%'),
      ),
    );
  } else if (Number(value.slice(0, -1)) > 100) {
    errors.push(fieldError.invalid(at, intOrString(value), 'must not be greater than 100%'));
  }
  return errors;
}

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePodDisruptionBudgetSpec(spec: Loose | undefined): Errors {
  const errors: Errors = [];
  const at = path('spec');
  if (!spec) return errors;
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    // Go prints the whole spec struct, pointers as addresses: shown here with the fields it names
    const pointer = (value: unknown, type: string) => (value === undefined ? `(${type})(nil)` : `(${type})(0xc000000000)`);
    const literal = new GoLiteral(
      `policy.PodDisruptionBudgetSpec{MinAvailable:${pointer(spec.minAvailable, '*intstr.IntOrString')}, Selector:${pointer(spec.selector, '*v1.LabelSelector')}, MaxUnavailable:${pointer(spec.maxUnavailable, '*intstr.IntOrString')}, UnhealthyPodEvictionPolicy:${pointer(spec.unhealthyPodEvictionPolicy, '*policy.UnhealthyPodEvictionPolicyType')}}`,
    );
    errors.push(fieldError.invalid('spec', literal, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (spec.minAvailable !== undefined) errors.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  if (spec.maxUnavailable !== undefined) errors.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errors.push(...validateLabelSelector(spec.selector, at.child('selector')));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy)) {
    errors.push(fieldError.notSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  return errors;
}

/** An IP network as netutils.ParseCIDRSloppy reads one (leading zeros allowed): [bits, prefix length, width]. */
function parseCidr(text: string): { bits: bigint; prefix: number; width: number } | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^[0-9]+$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (/^[0-9.]+$/.test(address)) {
    const parts = address.split('.');
    if (parts.length !== 4 || parts.some((part) => !/^[0-9]{1,3}$/.test(part) || Number(part) > 255) || prefix > 32) return undefined;
    return { bits: parts.reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n), prefix, width: 32 };
  }
  if (!isIPv6(address) || prefix > 128) return undefined;
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text ? text.split(':') : []);
  const embedded = (list: string[]) =>
    list.flatMap((group) => {
      if (!isIPv4(group)) return [group];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = embedded(groups(head));
  const right = embedded(groups(tail));
  const all = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return { bits: all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n), prefix, width: 128 };
}

const network = (cidr: { bits: bigint; prefix: number; width: number }) => cidr.bits >> BigInt(cidr.width - cidr.prefix);

function validateIpBlock(block: Loose, at: FieldPath): Errors {
  const cidrText: string = block.cidr ?? '';
  if (!cidrText) return [fieldError.required(at.child('cidr').toString())];
  const cidr = parseCidr(cidrText);
  if (!cidr) return [fieldError.invalid(at.child('cidr').toString(), cidrText, 'not a valid CIDR')];
  const errors: Errors = [];
  for (const [i, exceptText] of ((block.except ?? []) as string[]).entries()) {
    const here = at.child('except').index(i).toString();
    const except = parseCidr(exceptText);
    if (!except) return [...errors, fieldError.invalid(here, exceptText, 'not a valid CIDR')];
    // cidrIPNet.Contains(except.IP) with a longer prefix: the same family, inside, and smaller
    const inside = except.width === cidr.width && network({ ...except, prefix: cidr.prefix }) === network(cidr);
    if (!inside || cidr.prefix >= except.prefix) errors.push(fieldError.invalid(here, exceptText, 'must be a strict subset of `cidr`'));
  }
  return errors;
}

function validatePort(port: Loose, at: FieldPath): Errors {
  const errors: Errors = [];
  const protocol = port.protocol;
  if (protocol !== undefined && !['TCP', 'UDP', 'SCTP'].includes(protocol)) {
    errors.push(fieldError.notSupported(at.child('protocol').toString(), protocol, ['TCP', 'UDP', 'SCTP']));
  }
  const endPort: number | undefined = port.endPort;
  const endAt = at.child('endPort').toString();
  if (port.port === undefined) {
    if (endPort !== undefined) errors.push(fieldError.invalid(endAt, endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    for (const message of isValidPortNumber(port.port)) errors.push(fieldError.invalid(at.child('port').toString(), port.port, message));
    if (endPort !== undefined) {
      if (endPort < port.port) errors.push(fieldError.invalid(endAt, endPort, 'must be greater than or equal to `port`'));
      for (const message of isValidPortNumber(endPort)) errors.push(fieldError.invalid(endAt, endPort, message));
    }
  } else {
    if (endPort !== undefined) errors.push(fieldError.invalid(endAt, endPort, 'may not be specified when `port` is non-numeric'));
    for (const message of isValidPortName(port.port)) errors.push(fieldError.invalid(at.child('port').toString(), port.port, message));
  }
  return errors;
}

function validatePeer(peer: Loose, at: FieldPath): Errors {
  const errors: Errors = [];
  let peers = 0;
  if (peer.podSelector) {
    peers++;
    errors.push(...validateLabelSelector(peer.podSelector, at.child('podSelector')));
  }
  if (peer.namespaceSelector) {
    peers++;
    errors.push(...validateLabelSelector(peer.namespaceSelector, at.child('namespaceSelector')));
  }
  if (peer.ipBlock) {
    peers++;
    errors.push(...validateIpBlock(peer.ipBlock, at.child('ipBlock')));
  }
  if (peers === 0) errors.push(fieldError.required(at.toString(), 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock) errors.push(fieldError.forbidden(at.toString(), 'may not specify both ipBlock and another peer'));
  return errors;
}

const POLICY_TYPES = ['Ingress', 'Egress'];

export function validateNetworkPolicySpec(spec: Loose | undefined): Errors {
  const at = path('spec');
  const errors = validateLabelSelector(spec?.podSelector, at.child('podSelector'));
  for (const [direction, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    for (const [i, rule] of ((spec?.[direction] ?? []) as Loose[]).entries()) {
      const here = at.child(direction).index(i);
      for (const [j, port] of ((rule?.ports ?? []) as Loose[]).entries())
        errors.push(...validatePort(port ?? {}, here.child('ports').index(j)));
      for (const [j, peer] of ((rule?.[peersKey] ?? []) as Loose[]).entries())
        errors.push(...validatePeer(peer ?? {}, here.child(peersKey).index(j)));
    }
  }
  const types: string[] = spec?.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    const literal = new GoLiteral(`[]networking.PolicyType{${types.map((type) => JSON.stringify(type)).join(', ')}}`);
    errors.push(fieldError.invalid('spec.policyTypes', literal, 'may not specify more than two policyTypes'));
    return errors;
  }
  for (const [i, type] of types.entries()) {
    if (!POLICY_TYPES.includes(type)) errors.push(fieldError.notSupported(`spec.policyTypes[${i}]`, type, POLICY_TYPES));
  }
  return errors;
}

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort (networking/v1), and podSelector's `{}` (it has no omitempty). */
export function defaultNetworkPolicy(object: Loose): void {
  object.spec ??= {};
  const spec = object.spec as Loose;
  spec.podSelector ??= {};
  for (const rule of [...((spec.ingress ?? []) as Loose[]), ...((spec.egress ?? []) as Loose[])])
    for (const port of (rule?.ports ?? []) as Loose[]) if (port && port.protocol === undefined) port.protocol = 'TCP';
  if (!spec.policyTypes || spec.policyTypes.length === 0) {
    spec.policyTypes = ['Ingress'];
    if (spec.egress && spec.egress.length !== 0) spec.policyTypes.push('Egress');
  }
}
