import type { PlacementExplanation } from '@swarm/plugin-sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { WireContainer } from '../../src/wire.js';
import { ContainerDialog } from './details/container-dialog.js';
import { ExplainView } from './explain/explain-view.js';
import type { LiveState, LiveStore } from './live-store.js';
import { ClusterMap } from './map/cluster-map.js';
import { StatusView } from './status/status-view.js';
import { ViewerBadge } from './viewer/viewer-badge.js';

const TABS = [
  { id: 'map', label: 'Cluster map' },
  { id: 'explain', label: 'Explain a placement' },
  { id: 'status', label: 'Plugins & health' },
] as const;

type TabId = (typeof TABS)[number]['id'];

function tabFromHash(): TabId {
  const wanted = window.location.hash.slice(1);
  return TABS.find((tab) => tab.id === wanted)?.id ?? 'map';
}

function useLive(store: LiveStore): LiveState {
  const [state, setState] = useState(store.current);
  useEffect(() => store.subscribe(() => setState(store.current)), [store]);
  return state;
}

function Summary({ state }: { state: LiveState }) {
  const counts = useMemo(() => {
    let healthy = 0;
    let containers = 0;
    let running = 0;
    for (const node of state.nodes) {
      if (node.status === 'healthy') healthy++;
      containers += node.containers.length;
      for (const container of node.containers) if (container.state === 'running') running++;
    }
    return { healthy, containers, running };
  }, [state.nodes]);
  return (
    <p class="summary">
      <span>
        <strong>{state.nodes.length}</strong> node{state.nodes.length === 1 ? '' : 's'}
      </span>
      <span>
        <strong>{counts.healthy}</strong> healthy
      </span>
      {state.nodes.length > counts.healthy ? (
        <span class="summary-bad">
          <strong>{state.nodes.length - counts.healthy}</strong> not healthy
        </span>
      ) : null}
      <span>
        <strong>{counts.running}</strong> / {counts.containers} containers running
      </span>
    </p>
  );
}

/** The page: header with the cluster's totals, who is watching and the live state, then one of three views. */
export function App({ store }: { store: LiveStore }) {
  const state = useLive(store);
  const [tab, setTab] = useState<TabId>(tabFromHash);
  const [explanation, setExplanation] = useState<PlacementExplanation | undefined>(undefined);
  const [open, setOpen] = useState<WireContainer | undefined>(undefined);

  useEffect(() => {
    const onHash = () => setTab(tabFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const select = (id: TabId) => {
    setTab(id);
    history.replaceState(null, '', `#${id}`);
  };
  const onTabKey = (event: KeyboardEvent) => {
    const index = TABS.findIndex((item) => item.id === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = TABS[(index + step + TABS.length) % TABS.length]!;
    select(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  };
  const showOnMap = (value: PlacementExplanation) => {
    setExplanation(value);
    select('map');
  };
  const live = state.connection === 'live';
  const cluster = state.cluster;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <h1>swarm</h1>
          {cluster ? (
            <span class="muted-inverse">
              {cluster.driver} driver · {cluster.strategy} · {cluster.readOnly ? 'read-only' : 'read-write'}
            </span>
          ) : null}
        </div>
        <Summary state={state} />
        <ViewerBadge viewer={state.viewer} />
        <p class={`connection connection-${state.connection}`} role="status">
          {live ? 'Live' : state.connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
        </p>
      </header>
      <nav class="tabs" role="tablist" aria-label="Views" onKeyDown={onTabKey}>
        {TABS.map((item) => (
          <button
            key={item.id}
            id={`tab-${item.id}`}
            type="button"
            role="tab"
            aria-selected={tab === item.id}
            aria-controls="main"
            tabIndex={tab === item.id ? 0 : -1}
            onClick={() => select(item.id)}
          >
            {item.label}
          </button>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <div class="tabpanel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
          {tab === 'map' ? (
            state.connection === 'connecting' && state.nodes.length === 0 ? (
              <p class="loading">Connecting to the manager…</p>
            ) : (
              <ClusterMap
                nodes={state.nodes}
                explanation={explanation}
                onClearExplanation={() => setExplanation(undefined)}
                onOpen={setOpen}
              />
            )
          ) : null}
          {tab === 'explain' ? <ExplainView onShowOnMap={showOnMap} /> : null}
          {tab === 'status' ? <StatusView cluster={cluster} activity={state.activity} /> : null}
        </div>
      </main>
      {open ? <ContainerDialog container={open} readOnly={cluster?.readOnly ?? true} onClose={() => setOpen(undefined)} /> : null}
    </>
  );
}
