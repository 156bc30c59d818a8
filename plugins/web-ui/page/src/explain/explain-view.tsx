import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { useState } from 'preact/hooks';
import type { ExplainAnswer } from '../../../src/wire.js';
import { postJson } from '../api.js';
import { shellWords } from './shell-words.js';

export interface ExplainViewProps {
  /** Show the verdicts on the map. */
  readonly onShowOnMap: (explanation: PlacementExplanation) => void;
}

const EXAMPLE = '-m 1g -e constraint:zone==a -p 80:80 nginx';

/** One explanation: the CLI's text, and the nodes as a table. */
export function ExplanationResult({
  answer,
  onShowOnMap,
}: {
  answer: ExplainAnswer;
  onShowOnMap?: (explanation: PlacementExplanation) => void;
}) {
  const { explanation } = answer;
  return (
    <div class="explain-result">
      <p class={explanation.chosen ? 'outcome outcome-ok' : 'outcome outcome-none'} role="status">
        {explanation.chosen
          ? `Would run on ${explanation.chosen}.`
          : explanation.refused
            ? `Refused by ${explanation.refused.stage}: ${explanation.error ?? explanation.summary}`
            : `No node fits: ${explanation.error ?? explanation.summary}`}{' '}
        <span class="muted">{explanation.summary}</span>
      </p>
      {onShowOnMap ? (
        <button type="button" onClick={() => onShowOnMap(explanation)}>
          Show on the map
        </button>
      ) : null}
      <h3>As swarm schedule --explain prints it</h3>
      <pre class="explain-text" data-testid="explain-text" tabIndex={0}>
        {answer.text}
      </pre>
    </div>
  );
}

/** Type `docker run` options and see every node's verdict, as `swarm schedule --explain` shows them. */
export function ExplainView({ onShowOnMap }: ExplainViewProps) {
  const [line, setLine] = useState('');
  const [answer, setAnswer] = useState<ExplainAnswer | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    let args: string[];
    try {
      args = shellWords(line);
    } catch (parseError) {
      setError((parseError as Error).message);
      return;
    }
    setBusy(true);
    try {
      setAnswer(await postJson<ExplainAnswer>('api/explain', { args }));
    } catch (requestError) {
      setAnswer(undefined);
      setError((requestError as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="explain" aria-labelledby="explain-title" tabIndex={0}>
      <h2 id="explain-title">Why here, why not there</h2>
      <p class="muted">
        Type <code>docker run</code> options and an image. Nothing is created: the scheduler explains where the container would go and why
        each node fits or not.
      </p>
      <form class="explain-form" onSubmit={submit}>
        <label class="field field-wide">
          <span>docker run options</span>
          <input
            type="text"
            name="args"
            value={line}
            placeholder={EXAMPLE}
            spellcheck={false}
            autoComplete="off"
            aria-describedby={error ? 'explain-error' : undefined}
            aria-invalid={error ? true : undefined}
            onInput={(event) => setLine((event.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Explaining…' : 'Explain'}
        </button>
      </form>
      {error ? (
        <p id="explain-error" class="error" role="alert">
          {error}
        </p>
      ) : null}
      {answer ? <ExplanationResult answer={answer} onShowOnMap={onShowOnMap} /> : null}
    </section>
  );
}
