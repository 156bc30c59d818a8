import { describe, expect, it } from 'vitest';
import { ownedObject, testCaller } from '@swarm/plugin-sdk/testing';
import { rules } from './rules.js';

// `sees` runs per container of every `docker ps`: 10,000 calls must stay well under 5 ms.
describe('rules authorizer: sees is fast', () => {
  it('answers 10,000 objects in under 5 ms for a scoped caller (best of 5 runs)', () => {
    const objects = Array.from({ length: 1000 }, (_, index) =>
      ownedObject(index % 3 === 0 ? 'network' : 'container', `c${index}`, `user${index % 50}`, `team-${'abcdefg'[index % 7]}`),
    );
    const visibility = rules().visibility!(testCaller('alice', ['team-a', 'system:authenticated']));
    const runs: number[] = [];
    let seen = 0;
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      for (let i = 0; i < 10_000; i++) if (visibility.sees(objects[i % objects.length]!)) seen++;
      runs.push(performance.now() - started);
    }
    const best = Math.min(...runs);
    console.log(`10,000 sees: best ${best.toFixed(2)} ms, runs ${runs.map((ms) => ms.toFixed(2)).join(', ')}`);
    expect(seen).toBeGreaterThan(0);
    expect(best).toBeLessThan(5);
  });
});
