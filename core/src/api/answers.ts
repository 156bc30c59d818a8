// What engines answer to a call fanned out to all of them, and how the answers combine. Kept
// apart from fan-out.ts (which makes the calls), so the API context's parts can name an answer
// without importing the calls and, through them, the context itself.

export type Answer = Record<string, unknown>;

/** Lists are concatenated and numbers added: how prune reports and `system df` combine. */
export function mergeAnswers(answers: readonly Answer[]): Answer {
  const merged: Answer = {};
  for (const answer of answers) {
    for (const [key, value] of Object.entries(answer)) {
      const current = merged[key];
      if (Array.isArray(value)) merged[key] = [...(Array.isArray(current) ? current : []), ...value];
      else if (typeof value === 'number') merged[key] = (typeof current === 'number' ? current : 0) + value;
      else if (current === undefined || current === null) merged[key] = value;
    }
  }
  return merged;
}
