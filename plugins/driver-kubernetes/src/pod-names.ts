import { createHash, randomBytes } from 'node:crypto';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * The pod name for a docker name. A name Kubernetes takes as it is (a DNS label) stays; any other
 * (`web_1`, `My.App`) becomes a DNS label plus a short hash of the docker name, so two docker
 * names never share a pod. The docker name itself is kept in an annotation and is what users see.
 */
export function podNameFor(dockerName: string): string {
  if (DNS_LABEL.test(dockerName)) return dockerName;
  const hash = createHash('sha256').update(dockerName).digest('hex').slice(0, 8);
  const base = dockerName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63 - hash.length - 1)
    .replace(/-+$/, '');
  return base === '' ? `c-${hash}` : `${base}-${hash}`;
}

export function isDnsLabel(text: string): boolean {
  return DNS_LABEL.test(text);
}

// Docker's own generator pairs an adjective with a scientist; a shorter list does the same job.
const ADJECTIVES = [
  'admiring',
  'bold',
  'brave',
  'busy',
  'clever',
  'eager',
  'festive',
  'gentle',
  'happy',
  'jolly',
  'keen',
  'lucid',
  'nifty',
  'quirky',
  'serene',
  'vibrant',
  'wizardly',
  'zealous',
];
const SURNAMES = [
  'babbage',
  'curie',
  'darwin',
  'euler',
  'feynman',
  'galileo',
  'hopper',
  'kepler',
  'lovelace',
  'meitner',
  'newton',
  'noether',
  'pascal',
  'ritchie',
  'shannon',
  'thompson',
  'turing',
  'wozniak',
];

/** A docker-style name (`brave_turing`) for a container created without one, not in `taken`. */
export function generatedName(taken: (name: string) => boolean): string {
  for (let attempt = 0; ; attempt++) {
    const [a, b] = randomBytes(2);
    const name = `${ADJECTIVES[a! % ADJECTIVES.length]}_${SURNAMES[b! % SURNAMES.length]}${attempt > 3 ? attempt : ''}`;
    if (!taken(name)) return name;
  }
}
