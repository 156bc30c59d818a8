import { useEffect, useRef } from 'preact/hooks';
import type { ShownNode } from './layout.js';

const CELL = 8;
const STEP = 10;
/** Below this, the columns themselves are the overview. */
const MIN_NODES = 24;
const COLORS: Readonly<Record<string, string>> = {
  healthy: '#2e7d32',
  unhealthy: '#c62828',
  pending: '#b26a00',
  disconnected: '#616161',
};

export interface OverviewProps {
  readonly shown: readonly ShownNode[];
  readonly width: number;
  readonly onJump: (key: string) => void;
}

/**
 * Every shown node as one small square, coloured by health, for a glance at 1,000 nodes; a click
 * scrolls the map to that node. Drawn on a canvas (one element, whatever the node count); the
 * same facts are in the text beside it for screen readers and keyboards.
 */
export function Overview({ shown, width, onJump }: OverviewProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const perRow = Math.max(1, Math.floor(width / STEP));
  const rows = Math.ceil(shown.length / perRow);
  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const ratio = window.devicePixelRatio || 1;
    element.width = Math.max(1, Math.floor(width * ratio));
    element.height = Math.max(1, Math.floor(rows * STEP * ratio));
    const context = element.getContext('2d');
    if (!context) return;
    context.scale(ratio, ratio);
    shown.forEach((item, index) => {
      context.fillStyle = COLORS[item.node.status] ?? COLORS.disconnected!;
      context.fillRect((index % perRow) * STEP, Math.floor(index / perRow) * STEP, CELL, CELL);
    });
  }, [shown, width, rows, perRow]);
  const onClick = (event: MouseEvent) => {
    const element = canvas.current;
    if (!element) return;
    const box = element.getBoundingClientRect();
    const index = Math.floor((event.clientY - box.top) / STEP) * perRow + Math.floor((event.clientX - box.left) / STEP);
    const item = shown[index];
    if (item) onJump(item.node.key);
  };
  if (shown.length < MIN_NODES) return null;
  return (
    <canvas
      ref={canvas}
      class="overview"
      aria-hidden="true"
      style={{ width: `${width}px`, height: `${rows * STEP}px` }}
      onClick={onClick}
    />
  );
}
