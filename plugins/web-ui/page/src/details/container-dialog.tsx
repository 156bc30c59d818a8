import { useEffect, useRef, useState } from 'preact/hooks';
import type { ContainerDetails, ExplainAnswer, WireContainer } from '../../../src/wire.js';
import { dockerPost, getJson, postJson } from '../api.js';
import { ExplanationResult } from '../explain/explain-view.js';
import { bytes, cpus, dateTime } from '../format.js';

export interface ContainerDialogProps {
  readonly container: WireContainer;
  readonly readOnly: boolean;
  readonly onClose: () => void;
}

const ACTIONS = [
  { label: 'Stop', path: 'stop', method: 'POST' },
  { label: 'Start', path: 'start', method: 'POST' },
  { label: 'Restart', path: 'restart', method: 'POST' },
  { label: 'Remove', path: '', method: 'DELETE' },
] as const;

function Placement({ details }: { details: ContainerDetails }) {
  const { placement } = details;
  return (
    <section aria-labelledby="placement-title">
      <h3 id="placement-title">Placement</h3>
      <dl class="pairs">
        <dt>Node</dt>
        <dd>
          {details.node.name} <span class="muted">({details.node.addr})</span>
        </dd>
        <dt>Reschedule policy</dt>
        <dd>
          <code>{placement.reschedulePolicy}</code>
          <span class="muted">
            {placement.reschedulePolicy === 'on-node-failure'
              ? ' (started again on another node if this one fails)'
              : placement.reschedulePolicy === 'off'
                ? ' (stays with its node)'
                : ''}
          </span>
        </dd>
        <dt>Constraints</dt>
        <dd>{placement.constraints.length > 0 ? placement.constraints.map((item) => <code key={item}>{item} </code>) : 'none'}</dd>
        <dt>Affinities</dt>
        <dd>{placement.affinities.length > 0 ? placement.affinities.map((item) => <code key={item}>{item} </code>) : 'none'}</dd>
      </dl>
      {placement.history.length === 0 ? (
        <p class="muted">
          Placed before this manager started (or by another manager): no placement record here. "Explain again" shows where it would go now.
        </p>
      ) : (
        <ol class="history">
          {placement.history.map((record, index) => (
            <li key={record.at}>
              <strong>{index === 0 ? 'Placed' : 'Placed again (rescheduled or re-created)'}</strong> on <strong>{record.node}</strong> at{' '}
              {dateTime(record.at)} by {record.strategy}: {record.feasible} of {record.considered} nodes fitted; best:{' '}
              {record.ranked.map((ranked) => `${ranked.node} (${Math.round(ranked.score * 1000) / 1000})`).join(', ')}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** A container's details, its placement and reschedule policy, and (read-write views) actions. */
export function ContainerDialog({ container, readOnly, onClose }: ContainerDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [details, setDetails] = useState<ContainerDetails | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [explained, setExplained] = useState<ExplainAnswer | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);

  useEffect(() => {
    dialog.current?.showModal();
    const aborted = new AbortController();
    getJson<ContainerDetails>(`api/containers/${encodeURIComponent(container.id)}`, aborted.signal).then(setDetails, (loadError: Error) => {
      if (!aborted.signal.aborted) setError(loadError.message);
    });
    return () => aborted.abort();
  }, [container.id]);

  const explain = async () => {
    try {
      setExplained(await postJson<ExplainAnswer>('api/explain', { container: container.id }));
    } catch (explainError) {
      setError((explainError as Error).message);
    }
  };
  const act = async (action: (typeof ACTIONS)[number]) => {
    setError(undefined);
    if (action.method === 'DELETE' && !window.confirm(`Remove container ${container.name}? It is stopped first.`)) return;
    try {
      const id = encodeURIComponent(container.id);
      await dockerPost(action.path ? `/containers/${id}/${action.path}` : `/containers/${id}?force=1`, action.method);
      setDone(`${action.label}: done`);
    } catch (actionError) {
      setError((actionError as Error).message);
    }
  };

  return (
    <dialog ref={dialog} class="details" aria-labelledby="details-title" onClose={onClose}>
      <header class="details-header">
        <h2 id="details-title">{container.name}</h2>
        <button type="button" class="close" onClick={() => dialog.current?.close()} aria-label="Close">
          ×
        </button>
      </header>
      <dl class="pairs">
        <dt>ID</dt>
        <dd>
          <code>{container.id.slice(0, 12)}</code>
        </dd>
        <dt>Image</dt>
        <dd>{container.image}</dd>
        <dt>State</dt>
        <dd>
          {container.state}
          {details ? <span class="muted"> ({details.status})</span> : null}
        </dd>
        <dt>Ports</dt>
        <dd>{container.ports ? container.ports.join(', ') : 'none published'}</dd>
        {details ? (
          <>
            {details.command ? (
              <>
                <dt>Command</dt>
                <dd>
                  <code>{details.command}</code>
                </dd>
              </>
            ) : null}
            {details.created ? (
              <>
                <dt>Created</dt>
                <dd>{dateTime(details.created * 1000)}</dd>
              </>
            ) : null}
            <dt>Restart policy</dt>
            <dd>{details.restartPolicy}</dd>
            <dt>Reserved</dt>
            <dd>
              {details.cpus ? `${cpus(details.cpus)} CPUs` : 'no CPUs'}, {details.memory ? bytes(details.memory) : 'no memory limit'}
            </dd>
          </>
        ) : null}
      </dl>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {done ? <p role="status">{done}</p> : null}
      {details ? <Placement details={details} /> : !error ? <p>Loading…</p> : null}
      <div class="details-actions">
        <button type="button" onClick={explain}>
          Explain again now
        </button>
        {readOnly
          ? null
          : ACTIONS.map((action) => (
              <button
                key={action.label}
                type="button"
                class={action.method === 'DELETE' ? 'danger' : undefined}
                onClick={() => act(action)}
              >
                {action.label}
              </button>
            ))}
      </div>
      {explained ? <ExplanationResult answer={explained} /> : null}
    </dialog>
  );
}
