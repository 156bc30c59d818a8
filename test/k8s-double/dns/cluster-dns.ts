// The cluster DNS (what CoreDNS's kubernetes plugin answers), served on UDP and TCP port 53 of
// each engine's bridge gateway, the address pods get as their resolver:
//   <svc>.<ns>.svc.cluster.local            the ClusterIP, or the ready endpoints of a headless service
//   <hostname>.<svc>.<ns>.svc.cluster.local  a headless service's endpoint with that hostname
//   _<port>._<proto>.<svc>.<ns>.svc.cluster.local  SRV records
//   <a-b-c-d>.<ns>.pod.cluster.local        the pod IP a.b.c.d
// ExternalName services answer with a CNAME. Short names (`web`, `web.ns`) work through the
// search list the kubelet writes into the pods' resolv.conf.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import type { KObject, Store } from '../store/store.js';
import { buildResponse, parseQuestion, RCODE, TYPE, type Answer, type Question } from './wire.js';
import type { Loose } from '../model/loose.js';

const TTL = 5;

export interface ClusterDnsDeps {
  readonly store: Store;
  readonly domain?: string;
  readonly port?: number;
}

export class ClusterDns {
  private readonly store: Store;
  readonly domain: string;
  private readonly port: number;

  private readonly udp = new Map<string, Socket>();
  private readonly tcp = new Map<string, Server>();

  constructor({ store, domain = 'cluster.local', port = 53 }: ClusterDnsDeps) {
    this.store = store;
    this.domain = domain;
    this.port = port;
  }

  /** Answers on one more address (a bridge gateway); rejects with the reason when it cannot bind. */
  async listen(address: string): Promise<void> {
    if (this.udp.has(address)) return;
    const udp = createSocket('udp4');
    udp.on('message', (message, peer) => {
      const answer = this.answer(message);
      if (answer) udp.send(answer, peer.port, peer.address);
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(this.port, address, () => resolve());
    });
    udp.on('error', () => undefined);
    const tcp = createServer((socket) => {
      let buffer = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        buffer = Buffer.concat([buffer, chunk]);
        while (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
          const message = buffer.subarray(2, 2 + buffer.readUInt16BE(0));
          buffer = buffer.subarray(2 + message.length);
          const answer = this.answer(message);
          if (answer) {
            const length = Buffer.alloc(2);
            length.writeUInt16BE(answer.length);
            socket.write(Buffer.concat([length, answer]));
          }
        }
      });
      socket.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(this.port, address, () => resolve());
    });
    this.udp.set(address, udp);
    this.tcp.set(address, tcp);
  }

  async close(): Promise<void> {
    for (const socket of this.udp.values()) socket.close();
    await Promise.all([...this.tcp.values()].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.udp.clear();
    this.tcp.clear();
  }

  answer(message: Buffer): Buffer | undefined {
    const question = parseQuestion(message);
    if (!question) return undefined;
    const result = this.resolve(question);
    return buildResponse(question, result.rcode, result.answers, result.rcode !== RCODE.REFUSED);
  }

  resolve(question: Pick<Question, 'name' | 'type'>): { rcode: number; answers: Answer[] } {
    const name = question.name.replace(/\.$/, '');
    const suffix = `.${this.domain}`;
    if (!name.endsWith(suffix)) return { rcode: RCODE.REFUSED, answers: [] };
    const labels = name.slice(0, -suffix.length).split('.');
    const found = this.lookup(name, labels);
    if (!found) return { rcode: RCODE.NXDOMAIN, answers: [] };
    const wanted =
      question.type === TYPE.ANY ? found : found.filter((answer) => answer.type === question.type || answer.type === TYPE.CNAME);
    return { rcode: RCODE.NOERROR, answers: wanted };
  }

  private lookup(name: string, labels: string[]): Answer[] | undefined {
    const kind = labels[labels.length - 1];
    if (kind === 'pod' && labels.length === 3) {
      const ip = labels[0]!.split('-');
      if (ip.length !== 4 || ip.some((octet) => !/^\d+$/.test(octet) || Number(octet) > 255)) return undefined;
      return [{ type: TYPE.A, name, ttl: TTL, address: ip.join('.') }];
    }
    if (kind !== 'svc') return undefined;
    if (labels.length === 3) return this.service(name, labels[1]!, labels[0]!);
    if (labels.length === 4) {
      const endpoints = this.endpointAddresses(labels[2]!, labels[1]!).filter((a) => a.hostname === labels[0]);
      return endpoints.length ? endpoints.map((a) => ({ type: TYPE.A, name, ttl: TTL, address: a.ip as string })) : undefined;
    }
    if (labels.length === 5 && labels[0]!.startsWith('_') && labels[1]!.startsWith('_'))
      return this.srv(name, labels[3]!, labels[2]!, labels[0]!.slice(1), labels[1]!.slice(1));
    return undefined;
  }

  private serviceOf(namespace: string, service: string): KObject | undefined {
    return this.store.peek('services', `${namespace}/${service}`);
  }

  private endpointAddresses(namespace: string, service: string): Loose[] {
    const endpoints = this.store.peek('endpoints', `${namespace}/${service}`);
    return ((endpoints?.subsets ?? []) as Loose[]).flatMap((subset) => (subset.addresses ?? []) as Loose[]);
  }

  private service(name: string, namespace: string, serviceName: string): Answer[] | undefined {
    const service = this.serviceOf(namespace, serviceName);
    if (!service) return undefined;
    const spec = service.spec as Loose;
    if (spec.type === 'ExternalName') return [{ type: TYPE.CNAME, name, ttl: TTL, target: spec.externalName }];
    if (spec.clusterIP && spec.clusterIP !== 'None') return [{ type: TYPE.A, name, ttl: TTL, address: spec.clusterIP }];
    return this.endpointAddresses(namespace, serviceName).map((address) => ({
      type: TYPE.A,
      name,
      ttl: TTL,
      address: address.ip as string,
    }));
  }

  private srv(name: string, namespace: string, serviceName: string, portName: string, protocol: string): Answer[] | undefined {
    const service = this.serviceOf(namespace, serviceName);
    if (!service) return undefined;
    const port = (((service.spec as Loose).ports ?? []) as Loose[]).find(
      (p) => p.name === portName && String(p.protocol).toLowerCase() === protocol,
    );
    if (!port) return undefined;
    const base = `${serviceName}.${namespace}.svc.${this.domain}`;
    const spec = service.spec as Loose;
    if (spec.clusterIP && spec.clusterIP !== 'None')
      return [{ type: TYPE.SRV, name, ttl: TTL, priority: 0, weight: 100, port: port.port, target: base }];
    return this.endpointAddresses(namespace, serviceName).map((address) => ({
      type: TYPE.SRV,
      name,
      ttl: TTL,
      priority: 0,
      weight: 100,
      port: port.port,
      target: `${address.hostname ?? (address.ip as string).replace(/\./g, '-')}.${base}`,
    }));
  }
}
