// A Service's spec as ValidateService checks it (pkg/apis/core/validation/validation.go), in its
// order: ports (optional only for headless and ExternalName services), the type's own rules
// (clusterIP None only on ClusterIP services), each port, the selector, sessionAffinity, the
// type, nodePorts and duplicate ports. Field paths and messages are the API server's.
import { fieldError, GoLiteral, path, type FieldError } from './field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNumber } from './names.js';
import { validateLabels } from './validate-labels.js';
import type { Loose } from './loose.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];

/** isHeadlessService: a ClusterIP service whose first cluster IP is None. */
const isHeadless = (spec: Loose): boolean => spec.type === 'ClusterIP' && (spec.clusterIPs?.[0] ?? spec.clusterIP) === 'None';

/** %#v of the core.ServicePort key ValidateService reports a duplicate (protocol, port) with. */
const portKey = (port: Loose): GoLiteral =>
  new GoLiteral(
    `core.ServicePort{Name:"", Protocol:${JSON.stringify(port.protocol ?? '')}, AppProtocol:(*string)(nil), Port:${port.port ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );

function validateServicePort(port: Loose, requireName: boolean, names: Set<string>, i: number): FieldError[] {
  const errors: FieldError[] = [];
  const at = path('spec', 'ports').index(i);
  const name = at.child('name').toString();
  if (requireName && !port.name) errors.push(fieldError.required(name));
  else if (port.name) {
    for (const message of isDNS1123Label(port.name)) errors.push(fieldError.invalid(name, port.name, message));
    if (names.has(port.name)) errors.push(fieldError.duplicate(name, port.name));
    else names.add(port.name);
  }
  for (const message of isValidPortNumber(port.port ?? 0))
    errors.push(fieldError.invalid(at.child('port').toString(), port.port ?? 0, message));
  if (!port.protocol) errors.push(fieldError.required(at.child('protocol').toString()));
  else if (!PROTOCOLS.includes(port.protocol))
    errors.push(fieldError.notSupported(at.child('protocol').toString(), port.protocol, PROTOCOLS));
  // ValidatePortNumOrName
  const target = at.child('targetPort').toString();
  if (typeof port.targetPort === 'number') {
    for (const message of isValidPortNumber(port.targetPort)) errors.push(fieldError.invalid(target, port.targetPort, message));
  } else if (typeof port.targetPort === 'string') {
    for (const message of isValidPortName(port.targetPort)) errors.push(fieldError.invalid(target, port.targetPort, message));
  }
  return errors;
}

export function validateServiceSpec(spec: Loose): FieldError[] {
  const errors: FieldError[] = [];
  const ports = (spec.ports ?? []) as Loose[];
  if (ports.length === 0 && !isHeadless(spec) && spec.type !== 'ExternalName') errors.push(fieldError.required('spec.ports'));
  if ((spec.type === 'LoadBalancer' || spec.type === 'NodePort') && (spec.clusterIPs?.[0] ?? spec.clusterIP) === 'None') {
    errors.push(fieldError.invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${spec.type} services`));
  }
  if (spec.type === 'ExternalName') {
    // a CNAME, optionally fully qualified with a trailing dot
    const cname = String(spec.externalName ?? '').replace(/\.$/, '');
    if (!cname) errors.push(fieldError.required('spec.externalName'));
    else for (const message of isDNS1123Subdomain(cname)) errors.push(fieldError.invalid('spec.externalName', cname, message));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => errors.push(...validateServicePort(port, ports.length > 1, names, i)));
  if (spec.selector) errors.push(...validateLabels(spec.selector, path('spec', 'selector')));
  if (!spec.sessionAffinity) errors.push(fieldError.required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(spec.sessionAffinity))
    errors.push(fieldError.notSupported('spec.sessionAffinity', spec.sessionAffinity, SESSION_AFFINITIES));
  if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig) {
    errors.push(fieldError.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  if (!spec.type) errors.push(fieldError.required('spec.type'));
  else if (!SERVICE_TYPES.includes(spec.type)) errors.push(fieldError.notSupported('spec.type', spec.type, SERVICE_TYPES));
  if (spec.type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (port.nodePort) errors.push(fieldError.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (!port.nodePort) return;
    const key = `${port.protocol}/${port.nodePort}`;
    if (nodePorts.has(key)) errors.push(fieldError.duplicate(`spec.ports[${i}].nodePort`, port.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const key = `${port.protocol}/${port.port}`;
    if (seen.has(key)) errors.push(fieldError.duplicate(`spec.ports[${i}]`, portKey(port)));
    seen.add(key);
  });
  return errors;
}
