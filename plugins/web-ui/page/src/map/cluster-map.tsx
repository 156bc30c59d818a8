import type { NodeExplanation, PlacementExplanation } from '@swarm/plugin-sdk';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { WireContainer, WireNode } from '../../../src/wire.js';
import { STATUS_TEXT } from '../format.js';
import { columnsFor, filterNodes, groupNodes, labelKeys, layoutMap, SIZES, visibleItems, type HealthFilter } from './layout.js';
import { NodeColumn } from './node-column.js';
import { Overview } from './overview.js';

export interface ClusterMapProps {
  readonly nodes: readonly WireNode[];
  readonly explanation: PlacementExplanation | undefined;
  readonly onClearExplanation: () => void;
  readonly onOpen: (container: WireContainer) => void;
}

const OVERSCAN = 600;
const MAX_LISTED = 12;

/** Follows an element's size (the map's width decides how many columns fit in a row). */
function useSize(element: { current: HTMLElement | null }): { width: number; height: number } {
  const [size, setSize] = useState({ width: 1200, height: 800 });
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    const read = () => setSize({ width: target.clientWidth, height: target.clientHeight });
    read();
    const observer = new ResizeObserver(read);
    observer.observe(target);
    return () => observer.disconnect();
  }, []);
  return size;
}

/**
 * The cluster map: one column per node, in rows that fill the width, under optional group
 * headers. Only the rows near the viewport are in the DOM (their positions come from computed
 * column heights), so 1,000 nodes scroll as smoothly as 10.
 */
export function ClusterMap({ nodes, explanation, onClearExplanation, onOpen }: ClusterMapProps) {
  const [text, setText] = useState('');
  const [health, setHealth] = useState<HealthFilter>('all');
  const [grouping, setGrouping] = useState('');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [highlight, setHighlight] = useState<string | undefined>(undefined);
  const scroller = useRef<HTMLDivElement>(null);
  const size = useSize(scroller);
  const columns = columnsFor(size.width - 2 * SIZES.gap);

  const shown = useMemo(() => filterNodes(nodes, { text, health }), [nodes, text, health]);
  const groups = useMemo(() => groupNodes(shown, grouping), [shown, grouping]);
  const keys = useMemo(() => labelKeys(nodes), [nodes]);
  const verdicts = useMemo(() => {
    const byNode = new Map<string, NodeExplanation>();
    for (const node of explanation?.nodes ?? []) byNode.set(node.id, node).set(`name:${node.name}`, node);
    return byNode;
  }, [explanation]);
  const layout = useMemo(() => layoutMap(groups, columns, expanded, explanation !== undefined), [groups, columns, expanded, explanation]);
  const [first, end] = visibleItems(layout.items, scrollTop, size.height, OVERSCAN);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setScrollTop(element.scrollTop);
      });
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);

  useEffect(() => {
    if (nodes.length > 0) performance.mark('swarm-ui:map-rendered');
  }, [nodes.length > 0]);

  const toggle = (key: string) => {
    const next = new Set(expanded);
    if (!next.delete(key)) next.add(key);
    setExpanded(next);
  };
  const jump = (key: string) => {
    const row = layout.items.find((item) => item.kind === 'row' && item.nodes.some((shownNode) => shownNode.node.key === key));
    if (!row || !scroller.current) return;
    scroller.current.scrollTop = row.top;
    setScrollTop(row.top);
    setHighlight(key);
    setTimeout(() => setHighlight((current) => (current === key ? undefined : current)), 2500);
  };
  const troubled = shown.filter((item) => item.node.status !== 'healthy');

  return (
    <section class="map" aria-label="Cluster map">
      <div class="toolbar" role="search">
        <label class="field">
          <span>Filter</span>
          <input
            type="search"
            value={text}
            placeholder="name, address, image, or label zone=a"
            onInput={(event) => setText((event.target as HTMLInputElement).value)}
            aria-describedby="map-count"
          />
        </label>
        <label class="field">
          <span>Health</span>
          <select value={health} onChange={(event) => setHealth((event.target as HTMLSelectElement).value as HealthFilter)}>
            <option value="all">All nodes</option>
            <option value="healthy">Healthy</option>
            <option value="unhealthy">Not healthy</option>
          </select>
        </label>
        <label class="field">
          <span>Group by</span>
          <select value={grouping} onChange={(event) => setGrouping((event.target as HTMLSelectElement).value)}>
            <option value="">Nothing</option>
            <option value="status">Health</option>
            {keys.map((key) => (
              <option key={key} value={`label:${key}`}>
                Label {key}
              </option>
            ))}
          </select>
        </label>
        <p id="map-count" class="count" aria-live="polite">
          {shown.length === nodes.length ? '' : `${shown.length} of `}
          {nodes.length} node{nodes.length === 1 ? '' : 's'}
        </p>
        {explanation ? (
          <p class="explaining">
            Showing where <strong>{explanation.chosen ? `it would go: ${explanation.chosen}` : 'nothing fits'}</strong>
            <button type="button" class="link" onClick={onClearExplanation}>
              Clear
            </button>
          </p>
        ) : null}
      </div>
      <div class="overview-row">
        <Overview shown={shown} width={Math.min(size.width - 2 * SIZES.gap, 1400)} onJump={jump} />
        {troubled.length > 0 ? (
          <p class="troubled">
            <span>{troubled.length} not healthy:</span>{' '}
            {troubled.slice(0, MAX_LISTED).map((item) => (
              <button key={item.node.key} type="button" class="link" onClick={() => jump(item.node.key)}>
                {item.node.name || item.node.addr} ({STATUS_TEXT[item.node.status]})
              </button>
            ))}
            {troubled.length > MAX_LISTED ? <span> and {troubled.length - MAX_LISTED} more</span> : null}
          </p>
        ) : null}
      </div>
      <div ref={scroller} class="scroller" tabIndex={0} role="list" aria-label={`Nodes (${shown.length})`}>
        <div class="canvas" style={{ height: `${layout.height}px` }}>
          {layout.items.slice(first, end).map((item) =>
            item.kind === 'group' ? (
              <div key={item.key} class="group" role="listitem" style={{ top: `${item.top}px`, height: `${item.height}px` }}>
                <h2>
                  {item.title} <span class="group-count">({item.count})</span>
                </h2>
              </div>
            ) : (
              <div key={item.key} class="row" style={{ top: `${item.top}px`, height: `${item.height}px` }}>
                {item.nodes.map((shownNode) => (
                  <div key={shownNode.node.key} role="listitem" class={highlight === shownNode.node.key ? 'highlight' : undefined}>
                    <NodeColumn
                      item={shownNode}
                      height={item.height}
                      expanded={expanded.has(shownNode.node.key)}
                      explaining={explanation !== undefined}
                      verdict={verdicts.get(shownNode.node.id) ?? verdicts.get(`name:${shownNode.node.name}`)}
                      onToggle={toggle}
                      onOpen={onOpen}
                    />
                  </div>
                ))}
              </div>
            ),
          )}
        </div>
      </div>
    </section>
  );
}
