// The DNS message format (RFC 1035) for what the cluster DNS answers: one question, A, AAAA,
// CNAME and SRV answers, and the response codes NOERROR, SERVFAIL, NXDOMAIN, REFUSED.

export const TYPE = { A: 1, CNAME: 5, SOA: 6, PTR: 12, AAAA: 28, SRV: 33, ANY: 255 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

export interface Question {
  id: number;
  flags: number;
  name: string;
  type: number;
  klass: number;
  /** The question section as received, echoed in the answer. */
  raw: Buffer;
}

export type Answer =
  | { type: typeof TYPE.A; name: string; ttl: number; address: string }
  | { type: typeof TYPE.CNAME; name: string; ttl: number; target: string }
  | { type: typeof TYPE.SRV; name: string; ttl: number; priority: number; weight: number; port: number; target: string };

export function parseQuestion(message: Buffer): Question | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset]!;
    if (length === 0) {
      offset++;
      break;
    }
    if (length > 63 || offset + 1 + length > message.length) return undefined;
    labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  if (offset + 4 > message.length) return undefined;
  return {
    id: message.readUInt16BE(0),
    flags: message.readUInt16BE(2),
    name: labels.join('.').toLowerCase(),
    type: message.readUInt16BE(offset),
    klass: message.readUInt16BE(offset + 2),
    raw: message.subarray(12, offset + 4),
  };
}

function encodeName(name: string): Buffer {
  const parts = name.split('.').filter(Boolean);
  return Buffer.concat([
    ...parts.map((part) => Buffer.concat([Buffer.from([part.length]), Buffer.from(part, 'latin1')])),
    Buffer.from([0]),
  ]);
}

function record(answer: Answer): Buffer {
  let data: Buffer;
  if (answer.type === TYPE.A) data = Buffer.from(answer.address.split('.').map(Number));
  else if (answer.type === TYPE.CNAME) data = encodeName(answer.target);
  else {
    data = Buffer.alloc(6);
    data.writeUInt16BE(answer.priority, 0);
    data.writeUInt16BE(answer.weight, 2);
    data.writeUInt16BE(answer.port, 4);
    data = Buffer.concat([data, encodeName(answer.target)]);
  }
  const head = Buffer.alloc(10);
  head.writeUInt16BE(answer.type, 0);
  head.writeUInt16BE(1, 2);
  head.writeUInt32BE(answer.ttl, 4);
  head.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(answer.name), head, data]);
}

export function buildResponse(question: Question, rcode: number, answers: Answer[], authoritative: boolean): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  // QR, the query's opcode and RD, AA when we own the zone, RA
  const flags = 0x8000 | (question.flags & 0x7900) | (authoritative ? 0x0400 : 0) | 0x0080 | rcode;
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, question.raw, ...answers.map(record)]);
}
