import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActivityItem, StatusAnswer, WireCluster } from '../../../src/wire.js';
import { getJson } from '../api.js';
import { bytes, clock, dateTime, duration } from '../format.js';

const REFRESH_MS = 5000;

export interface StatusViewProps {
  readonly cluster: WireCluster | undefined;
  readonly activity: readonly ActivityItem[];
}

interface Rates {
  readonly requests: number;
  readonly events: number;
}

function Figure({ label, value, detail }: { label: string; value: string; detail?: string }) {
  return (
    <div class="figure">
      <dt>{label}</dt>
      <dd>
        <span class="figure-value">{value}</span>
        {detail ? <span class="figure-detail">{detail}</span> : null}
      </dd>
    </div>
  );
}

function perSecond(value: number): string {
  return value < 10 ? value.toFixed(1) : String(Math.round(value));
}

/** Plugins, discovery, replication and the usual metrics, refreshed every few seconds while shown. */
export function StatusView({ cluster, activity }: StatusViewProps) {
  const [status, setStatus] = useState<StatusAnswer | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [rates, setRates] = useState<Rates | undefined>(undefined);
  const previous = useRef<{ at: number; requests: number; events: number } | undefined>(undefined);

  useEffect(() => {
    const aborted = new AbortController();
    const load = async () => {
      try {
        const answer = await getJson<StatusAnswer>('api/status', aborted.signal);
        const now = Date.now();
        const before = previous.current;
        if (before) {
          const seconds = (now - before.at) / 1000;
          setRates({
            requests: (answer.metrics.apiRequests - before.requests) / seconds,
            events: (answer.metrics.events - before.events) / seconds,
          });
        }
        previous.current = { at: now, requests: answer.metrics.apiRequests, events: answer.metrics.events };
        setStatus(answer);
        setError(undefined);
      } catch (loadError) {
        if (!aborted.signal.aborted) setError((loadError as Error).message);
      }
    };
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      aborted.abort();
      clearInterval(timer);
    };
  }, []);

  if (!status) return <section class="status">{error ? <p class="error">{error}</p> : <p>Loading…</p>}</section>;
  const { metrics, discovery, replication } = status;
  const nodeCount = Object.values(metrics.nodes).reduce((sum, count) => sum + count, 0);
  return (
    <section class="status" aria-labelledby="status-title" tabIndex={0}>
      <h2 id="status-title">Manager health</h2>
      {error ? <p class="error">Refresh failed: {error}</p> : null}
      <dl class="figures">
        <Figure
          label="Nodes healthy"
          value={`${metrics.nodes.healthy} / ${nodeCount}`}
          detail={`${metrics.nodes.unhealthy} unhealthy, ${metrics.nodes.pending} pending`}
        />
        <Figure label="Containers running" value={`${metrics.containers.running} / ${metrics.containers.total}`} />
        <Figure label="Placements" value={String(metrics.placements.scheduled)} detail={`${metrics.placements.failed} refused`} />
        <Figure
          label="API requests"
          value={String(metrics.apiRequests)}
          detail={`${metrics.apiErrors} errors (5xx)${rates ? `, ${perSecond(rates.requests)}/s` : ''}`}
        />
        <Figure label="Cluster events" value={String(metrics.events)} detail={rates ? `${perSecond(rates.events)}/s` : undefined} />
        <Figure label="Manager memory" value={bytes(metrics.rssBytes)} detail={`heap ${bytes(metrics.heapUsedBytes)}`} />
        <Figure label="Up for" value={duration(metrics.uptimeSeconds)} detail={cluster ? `swarm ${cluster.version}` : undefined} />
      </dl>
      <p class="muted">
        All metrics in Prometheus format: <code>/_swarm/metrics</code>
      </p>

      <div class="panels">
        <section class="panel" aria-labelledby="discovery-title">
          <h3 id="discovery-title">Discovery</h3>
          <dl class="pairs">
            <dt>URI</dt>
            <dd>
              <code>{discovery.uri || '(none)'}</code>
            </dd>
            <dt>Backend</dt>
            <dd>{discovery.scheme || '-'}</dd>
            <dt>State</dt>
            <dd class={`state-${discovery.state}`}>
              {discovery.state === 'driver' ? `read by the ${cluster?.driver ?? ''} driver itself` : discovery.state}
            </dd>
            {discovery.entries !== undefined ? (
              <>
                <dt>Entries</dt>
                <dd>
                  {discovery.entries}
                  {discovery.updatedAt ? ` (at ${clock(discovery.updatedAt)})` : ''}
                </dd>
              </>
            ) : null}
            {discovery.lastError ? (
              <>
                <dt>Last error</dt>
                <dd class="error-text">
                  {discovery.lastError}
                  {discovery.lastErrorAt ? ` (at ${clock(discovery.lastErrorAt)})` : ''}
                </dd>
              </>
            ) : null}
          </dl>
        </section>
        <section class="panel" aria-labelledby="replication-title">
          <h3 id="replication-title">Replication</h3>
          <dl class="pairs">
            <dt>Replication</dt>
            <dd>{replication.enabled ? 'on' : 'off (single manager)'}</dd>
            <dt>This manager</dt>
            <dd>{replication.role}</dd>
            {replication.enabled ? (
              <>
                <dt>Primary</dt>
                <dd>{replication.primary ?? 'none elected'}</dd>
                <dt>Advertised as</dt>
                <dd>{replication.advertise ?? '-'}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <section class="panel" aria-labelledby="cluster-title">
          <h3 id="cluster-title">Cluster</h3>
          <dl class="pairs">
            <dt>Driver</dt>
            <dd>{cluster?.driver}</dd>
            {status.clusterRows.map(([key, value]) => (
              <Fragment key={key}>
                <dt>{key}</dt>
                <dd>{value}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      </div>

      <section aria-labelledby="plugins-title">
        <h3 id="plugins-title">Plugins (plugin API {cluster?.apiVersion})</h3>
        <div class="table-wrap">
          <table class="plugins">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Version</th>
                <th scope="col">API range</th>
                <th scope="col">Provides</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {status.plugins.map((plugin) => (
                <tr key={plugin.name}>
                  <th scope="row">{plugin.name}</th>
                  <td>{plugin.version}</td>
                  <td>
                    <code>{plugin.apiRange}</code>
                  </td>
                  <td>{plugin.provides.join(', ')}</td>
                  <td>{plugin.builtin ? 'built-in' : plugin.packageName}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="activity-title">
        <h3 id="activity-title">Recent events</h3>
        {activity.length === 0 ? (
          <p class="muted">None since this page opened.</p>
        ) : (
          <ol class="activity">
            {activity.slice(0, 50).map((item, index) => (
              <li key={`${item.time}-${index}`}>
                <time dateTime={new Date(item.time).toISOString()} title={dateTime(item.time)}>
                  {clock(item.time)}
                </time>{' '}
                <span class="activity-action">
                  {item.type} {item.action}
                </span>{' '}
                {item.name ?? (item.id ? item.id.slice(0, 12) : '')}
                {item.node ? <span class="muted"> on {item.node}</span> : null}
              </li>
            ))}
          </ol>
        )}
      </section>
    </section>
  );
}
