// The restricted level of the Kubernetes Pod Security Standards (which includes the baseline
// level), control by control, as the standard states each one: the restricted fields and their
// allowed values for a pod (its spec and metadata). A Pod Security admission controller that
// enforces `restricted` refuses a pod for which this lists a violation.

interface Loose {
  [key: string]: unknown;
}
type SecurityContext = {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: { type?: string; user?: string; role?: string };
  windowsOptions?: { hostProcess?: boolean };
  sysctls?: Array<{ name: string }>;
};
interface Container {
  name: string;
  ports?: Array<{ hostPort?: number }>;
  securityContext?: SecurityContext;
}
export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Array<Loose & { name: string }>;
}

/** The capabilities baseline allows adding: the container runtime's default set. */
const BASELINE_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
];
const SELINUX_TYPES = ['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
/** The sysctls the baseline Pod Security level allows (read from the standard, not from the code under test). */
export const SAFE_SYSCTLS: readonly string[] = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  // safe from Kubernetes 1.32 on (the double's version)
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
];
const RESTRICTED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** Each violated control as "<control>: <field> <what is wrong>"; [] when the pod meets the level. */
export function restrictedViolations(spec: PodSpec, annotations: Record<string, string> = {}): string[] {
  const out: string[] = [];
  const pod = spec.securityContext ?? {};
  const containers = [
    ...spec.containers.map((c, i) => ({ c, at: `spec.containers[${i}]` })),
    ...(spec.initContainers ?? []).map((c, i) => ({ c, at: `spec.initContainers[${i}]` })),
    ...(spec.ephemeralContainers ?? []).map((c, i) => ({ c, at: `spec.ephemeralContainers[${i}]` })),
  ];
  const each = (check: (sc: SecurityContext, at: string, c: Container) => void) => {
    for (const { c, at } of containers) check(c.securityContext ?? {}, at, c);
  };

  // --- baseline ---
  if (pod.windowsOptions?.hostProcess) out.push('HostProcess: spec.securityContext.windowsOptions.hostProcess is true');
  each((sc, at) => sc.windowsOptions?.hostProcess && out.push(`HostProcess: ${at}.securityContext.windowsOptions.hostProcess is true`));
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (spec[key]) out.push(`Host Namespaces: spec.${key} is true`);
  each((sc, at) => sc.privileged && out.push(`Privileged Containers: ${at}.securityContext.privileged is true`));
  each((sc, at) => {
    for (const cap of sc.capabilities?.add ?? [])
      if (!BASELINE_CAPABILITIES.includes(cap)) out.push(`Capabilities (baseline): ${at} adds ${cap}`);
  });
  for (const volume of spec.volumes ?? []) if (volume.hostPath) out.push(`HostPath Volumes: volume ${volume.name} is a hostPath`);
  each((_, at, c) => {
    for (const port of c.ports ?? []) if (port.hostPort) out.push(`Host Ports: ${at} uses hostPort ${port.hostPort}`);
  });
  const appArmor = (profile: { type?: string } | undefined, at: string) =>
    profile?.type !== undefined &&
    !['RuntimeDefault', 'Localhost'].includes(profile.type) &&
    out.push(`AppArmor: ${at} is ${profile.type}`);
  appArmor(pod.appArmorProfile, 'spec.securityContext.appArmorProfile.type');
  each((sc, at) => appArmor(sc.appArmorProfile, `${at}.securityContext.appArmorProfile.type`));
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith('container.apparmor.security.beta.kubernetes.io/') && value !== 'runtime/default' && !value.startsWith('localhost/'))
      out.push(`AppArmor: annotation ${key} is ${value}`);
  }
  const seLinux = (options: SecurityContext['seLinuxOptions'], at: string) => {
    if (options?.type !== undefined && options.type !== '' && !SELINUX_TYPES.includes(options.type))
      out.push(`SELinux: ${at}.type is ${options.type}`);
    if (options?.user) out.push(`SELinux: ${at}.user is set`);
    if (options?.role) out.push(`SELinux: ${at}.role is set`);
  };
  seLinux(pod.seLinuxOptions, 'spec.securityContext.seLinuxOptions');
  each((sc, at) => seLinux(sc.seLinuxOptions, `${at}.securityContext.seLinuxOptions`));
  each((sc, at) => sc.procMount !== undefined && sc.procMount !== 'Default' && out.push(`/proc Mount Type: ${at} is ${sc.procMount}`));
  for (const sysctl of pod.sysctls ?? []) if (!SAFE_SYSCTLS.includes(sysctl.name)) out.push(`Sysctls: ${sysctl.name} is not a safe sysctl`);

  // --- restricted ---
  for (const volume of spec.volumes ?? []) {
    const source = Object.keys(volume).find((key) => key !== 'name');
    if (source !== undefined && !RESTRICTED_VOLUMES.includes(source)) out.push(`Volume Types: volume ${volume.name} is ${source}`);
  }
  each(
    (sc, at) =>
      sc.allowPrivilegeEscalation !== false &&
      out.push(`Privilege Escalation: ${at}.securityContext.allowPrivilegeEscalation is not false`),
  );
  each((sc, at) => {
    if (sc.runAsNonRoot === false) out.push(`Running as Non-root: ${at}.securityContext.runAsNonRoot is false`);
    else if (sc.runAsNonRoot !== true && pod.runAsNonRoot !== true)
      out.push(`Running as Non-root: neither the pod nor ${at} sets runAsNonRoot: true`);
  });
  if (pod.runAsUser === 0) out.push('Running as Non-root user: spec.securityContext.runAsUser is 0');
  each((sc, at) => sc.runAsUser === 0 && out.push(`Running as Non-root user: ${at}.securityContext.runAsUser is 0`));
  const allowedSeccomp = (type: string | undefined) => type === 'RuntimeDefault' || type === 'Localhost';
  if (pod.seccompProfile?.type !== undefined && !allowedSeccomp(pod.seccompProfile.type))
    out.push(`Seccomp: spec.securityContext.seccompProfile.type is ${pod.seccompProfile.type}`);
  each((sc, at) => {
    const type = sc.seccompProfile?.type;
    if (type !== undefined && !allowedSeccomp(type)) out.push(`Seccomp: ${at}.securityContext.seccompProfile.type is ${type}`);
    else if (type === undefined && !allowedSeccomp(pod.seccompProfile?.type))
      out.push(`Seccomp: neither the pod nor ${at} sets a seccompProfile`);
  });
  each((sc, at) => {
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) out.push(`Capabilities: ${at} does not drop ALL`);
    for (const cap of sc.capabilities?.add ?? []) if (cap !== 'NET_BIND_SERVICE') out.push(`Capabilities: ${at} adds ${cap}`);
  });
  return out;
}
