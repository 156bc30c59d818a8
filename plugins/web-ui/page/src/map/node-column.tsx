import type { NodeExplanation } from '@swarm/plugin-sdk';
import { useMemo } from 'preact/hooks';
import type { WireContainer } from '../../../src/wire.js';
import { byName, bytes, cpus, share, STATUS_TEXT } from '../format.js';
import { ContainerCard } from './container-card.js';
import { cardsShown, SIZES, STANDARD_LABELS, type ShownNode } from './layout.js';

export interface NodeColumnProps {
  readonly item: ShownNode;
  readonly height: number;
  readonly expanded: boolean;
  readonly verdict: NodeExplanation | undefined;
  readonly explaining: boolean;
  readonly onToggle: (key: string) => void;
  readonly onOpen: (container: WireContainer) => void;
}

function Bar({ label, used, total, text }: { label: string; used: number; total: number; text: string }) {
  const percent = Math.round(share(used, total) * 100);
  return (
    <div class="bar" style={{ height: `${SIZES.bar}px` }}>
      <div class="bar-text">
        <span>{label}</span>
        <span>{text}</span>
      </div>
      <div
        class={`bar-track${percent >= 90 ? ' bar-full' : ''}`}
        role="meter"
        aria-label={`${label} reserved`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${text} reserved (${percent}%)`}
      >
        <div class="bar-fill" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

function Verdict({ verdict, explaining }: { verdict: NodeExplanation | undefined; explaining: boolean }) {
  if (!explaining) return null;
  let text = 'not considered';
  let tone = 'muted';
  if (verdict?.rank === 1) {
    text = `chosen (score ${Math.round((verdict.score ?? 0) * 1000) / 1000})`;
    tone = 'chosen';
  } else if (verdict?.feasible) {
    text = `fits, rank ${verdict.rank ?? '-'}`;
    tone = 'fits';
  } else if (verdict) {
    const failed = verdict.verdicts.find((record) => !record.pass);
    text = failed ? `${failed.filter}: ${failed.reason ?? 'failed'}` : 'does not fit';
    tone = 'refused';
  }
  return (
    <p class={`verdict verdict-${tone}`} style={{ height: `${SIZES.verdict}px` }} title={text}>
      {text}
    </p>
  );
}

/** A node: name, address, health and its reason, labels, reservations, slots and containers. */
export function NodeColumn({ item, height, expanded, verdict, explaining, onToggle, onOpen }: NodeColumnProps) {
  const { node } = item;
  const titleId = `node-${node.key}`;
  const labels = Object.entries(node.labels).filter(([key]) => !STANDARD_LABELS.has(key));
  // Natural order (web-2 before web-10), worked out here for the few columns on screen.
  const ordered = useMemo(() => [...item.containers].sort((a, b) => byName(a.name, b.name)), [item.containers]);
  const shown = ordered.slice(0, cardsShown(item, expanded));
  const hidden = item.containers.length - shown.length;
  const status = STATUS_TEXT[node.status] ?? node.status;
  const count = item.containers.length === item.total ? `${item.total}` : `${item.containers.length} of ${item.total}`;
  const containers = `${count} container${item.total === 1 ? '' : 's'}`;
  const summary = node.slots === undefined ? containers : `${containers}, ${node.slots} slot${node.slots === 1 ? '' : 's'}`;
  return (
    <article
      class={`column status-${node.status}`}
      style={{ height: `${height}px`, width: `${SIZES.columnWidth}px`, padding: `${SIZES.padding}px` }}
      aria-labelledby={titleId}
      data-node={node.name}
      data-status={node.status}
    >
      <header class="column-title" style={{ height: `${SIZES.title}px` }}>
        <h3 id={titleId} title={node.name}>
          {node.name || '(unknown)'}
        </h3>
        <span class={`badge badge-${node.status}`}>{status}</span>
      </header>
      <p class="column-address" style={{ height: `${SIZES.address}px` }}>
        {node.addr}
      </p>
      {node.error ? (
        <p class="column-error" style={{ height: `${SIZES.error}px` }} title={node.error}>
          {node.error}
        </p>
      ) : null}
      <Verdict verdict={verdict} explaining={explaining} />
      <ul class="labels" style={{ height: `${SIZES.labels}px` }} aria-label="labels">
        {labels.length === 0 ? <li class="label-none">no labels</li> : null}
        {labels.map(([key, value]) => (
          <li key={key} class="label" title={`${key}=${value}`}>
            {key}={value}
          </li>
        ))}
      </ul>
      <Bar label="CPU" used={node.cpus.used} total={node.cpus.total} text={`${cpus(node.cpus.used)} / ${cpus(node.cpus.total)}`} />
      <Bar
        label="Memory"
        used={node.memory.used}
        total={node.memory.total}
        text={`${bytes(node.memory.used)} / ${bytes(node.memory.total)}`}
      />
      <p class="column-summary" style={{ height: `${SIZES.summary}px` }}>
        {summary}
      </p>
      <ul class="cards" aria-label={`containers on ${node.name}`}>
        {shown.map((container) => (
          <ContainerCard key={container.id} container={container} onOpen={onOpen} />
        ))}
      </ul>
      {item.containers.length > SIZES.cardsShown ? (
        <button
          type="button"
          class="more"
          style={{ height: `${SIZES.more - 6}px` }}
          aria-expanded={expanded}
          onClick={() => onToggle(node.key)}
        >
          {expanded ? 'Show fewer' : `Show all ${item.containers.length} (${hidden} more)`}
        </button>
      ) : null}
    </article>
  );
}
