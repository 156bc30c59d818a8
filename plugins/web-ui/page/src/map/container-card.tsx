import type { WireContainer } from '../../../src/wire.js';
import { SIZES } from './layout.js';

export interface ContainerCardProps {
  readonly container: WireContainer;
  readonly onOpen: (container: WireContainer) => void;
}

/** One container in its node's column: a button that opens its details. */
/** `127.0.0.2:8080->80/tcp` → `8080→80`: the address is the node's own, shown in its column. */
function shortPort(port: string): string {
  const match = /(?:^|:)(\d+)->(\d+)\/(\w+)$/.exec(port);
  if (!match) return port;
  return `${match[1]}→${match[2]}${match[3] === 'tcp' ? '' : `/${match[3]}`}`;
}

export function ContainerCard({ container, onOpen }: ContainerCardProps) {
  const ports = (container.ports ?? []).join(', ');
  const short = (container.ports ?? []).map(shortPort).join(' ');
  return (
    <li class="card-item" style={{ height: `${SIZES.card}px`, marginBottom: `${SIZES.cardGap}px` }}>
      <button
        type="button"
        class={`card state-${container.state}`}
        data-container={container.name}
        title={ports ? `${container.name}: ${ports}` : container.name}
        onClick={() => onOpen(container)}
      >
        <span class="card-line">
          <span class="card-name">{container.name}</span>
          <span class={`pill pill-${container.state}`}>{container.state}</span>
        </span>
        <span class="card-line card-meta">
          <span class="card-image">{container.image}</span>
          {short ? <span class="card-ports">{short}</span> : null}
        </span>
      </button>
    </li>
  );
}
