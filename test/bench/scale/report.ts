import { cpus, loadavg, totalmem, release } from 'node:os';
import { formatPercentiles, ms, type Percentiles } from './stats.js';
import type { ListLatency, Throughput } from './phases.js';

export interface ScaleResult {
  nodes: number;
  containers: number;
  healthyMs: number | undefined;
  info: Percentiles;
  /** The same `info` calls against a plain server replaying the manager's answer: the client's and the machine's share. */
  infoReplay: Percentiles;
  ps: ListLatency;
  run: Percentiles;
  /** The hollow engine's own delay inside one `docker run -d` (create + start). */
  runEngineDelayMs: number;
  runWorkers: number;
  creates: Throughput;
  createWorkers: number;
  /** Quiet seconds before each settled RSS sample. */
  settleSeconds: number;
  managerRssMb: { afterHealthy: number; settled: number; peak: number; peakByPhase: Record<string, number>; settledAfterRun: number };
  managerCpuSeconds: { toHealthy: number; measuring: number };
  /** `engine marked unhealthy` lines in the manager's log (flaps: the hollow engines never go down). */
  enginesMarkedUnhealthy: { untilHealthy: number; afterwards: number };
  hollowProcesses: number;
  hollowRssMb: number;
  hollowCpuSeconds: number;
  /** Requests the engines answered by route, until all were healthy and until the end. */
  callsAtHealthy: Record<string, number>;
  callsAtEnd: Record<string, number>;
  hotSpots?: string;
  /** 1-minute load average when the measurements started and ended (other jobs share the machine). */
  load: { start: number; end: number };
}

export const loadNow = (): number => loadavg()[0] ?? 0;

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}, Node ${process.version} (machine shared with other jobs)`;
}

const overhead = (value: number, delay: number): string => ms(Math.max(0, value - delay));

export function resultSection(result: ScaleResult): string {
  const lines = [
    `## ${result.nodes} nodes × ${result.containers} containers`,
    '',
    '| measure | value |',
    '|---|---|',
    `| all nodes Healthy after manager start | ${result.healthyMs === undefined ? 'not reached' : `${(result.healthyMs / 1000).toFixed(1)} s`} |`,
    `| \`info\` p50 / p90 / p99 (ms, ${result.info.count} runs) | ${formatPercentiles(result.info)} |`,
    `| the same \`info\` calls to a plain server replaying the answer (the client's own share), p50 / p90 / p99 | ${formatPercentiles(result.infoReplay)} |`,
    `| \`ps -a\` first byte p50 / p90 / p99 (ms, ${result.ps.firstByte.count} runs) | ${formatPercentiles(result.ps.firstByte)} |`,
    `| \`ps -a\` whole list, parsed (dockerode), p50 / p90 / p99 (ms, ${result.ps.whole.count} runs) | ${formatPercentiles(result.ps.whole)} |`,
    `| \`run -d\` p50 / p90 / p99 (ms, ${result.run.count} runs, ${result.runWorkers} clients) | ${formatPercentiles(result.run)} |`,
    `| \`run -d\` beyond the engine's own ${ms(result.runEngineDelayMs)} ms, p50 / p90 / p99 | ${overhead(result.run.p50, result.runEngineDelayMs)} / ${overhead(result.run.p90, result.runEngineDelayMs)} / ${overhead(result.run.p99, result.runEngineDelayMs)} |`,
    `| creates/s with ${result.createWorkers} clients (${result.creates.latency.count} creates) | ${Math.round(result.creates.perSecond)} |`,
    `| create latency p50 / p90 / p99 (ms) | ${formatPercentiles(result.creates.latency)} |`,
    `| manager RSS when all Healthy / ${result.settleSeconds} s later | ${Math.round(result.managerRssMb.afterHealthy)} MB / ${Math.round(result.managerRssMb.settled)} MB |`,
    `| manager RSS peak while measuring / ${result.settleSeconds} s after | ${Math.round(result.managerRssMb.peak)} MB / ${Math.round(result.managerRssMb.settledAfterRun)} MB |`,
    `| manager RSS peak by phase | ${Object.entries(result.managerRssMb.peakByPhase)
      .map(([phase, mb]) => `${phase} ${Math.round(mb)} MB`)
      .join(', ')} |`,
    `| manager CPU: start to healthy / measurements | ${result.managerCpuSeconds.toHealthy.toFixed(1)} s / ${result.managerCpuSeconds.measuring.toFixed(1)} s |`,
    `| engines marked Unhealthy (none goes down): until all Healthy / afterwards | ${result.enginesMarkedUnhealthy.untilHealthy} / ${result.enginesMarkedUnhealthy.afterwards} |`,
    `| hollow engines: processes, RSS / CPU (whole run, all processes) | ${result.hollowProcesses}, ${Math.round(result.hollowRssMb)} MB / ${result.hollowCpuSeconds.toFixed(1)} s |`,
    `| machine load (1-min average) at start / end of measurements | ${result.load.start.toFixed(1)} / ${result.load.end.toFixed(1)} |`,
  ];
  const routes = Object.keys(result.callsAtEnd).sort((a, b) => (result.callsAtEnd[b] ?? 0) - (result.callsAtEnd[a] ?? 0));
  lines.push(
    '',
    'Requests the hollow engines answered (all engines together):',
    '',
    '| route | until healthy | measurements |',
    '|---|---|---|',
  );
  for (const route of routes) {
    const early = result.callsAtHealthy[route] ?? 0;
    lines.push(`| \`${route}\` | ${early} | ${(result.callsAtEnd[route] ?? 0) - early} |`);
  }
  if (result.hotSpots !== undefined) lines.push('', 'Manager CPU profile (`node --cpu-prof`), top self time:', '', result.hotSpots);
  return lines.join('\n');
}
