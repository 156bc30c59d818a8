import { execFile } from 'node:child_process';
import type { Logger } from '@swarm/plugin-sdk';

/** How long one `systemd-notify` may take (it waits until the service manager has read the message). */
const NOTIFY_TIMEOUT_MS = 5000;

/**
 * systemd's readiness and watchdog protocol (`Type=notify`, `WatchdogSec=`), for a manager started
 * by a unit. The protocol is a Unix datagram to `$NOTIFY_SOCKET`, which Node cannot send without a
 * native module, so each message goes through `systemd-notify`, which ships with systemd wherever
 * a unit runs, and waits until the service manager has taken the message (the unit needs
 * `NotifyAccess=all`: the sender is a child of the main process). Without `$NOTIFY_SOCKET` it does
 * nothing.
 */
export class ServiceNotifier {
  private watchdog: NodeJS.Timeout | undefined;
  private saidUnavailable = false;

  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
  ) {}

  /** A notifier when a service manager listens (`$NOTIFY_SOCKET`), else undefined. */
  static fromEnvironment(env: NodeJS.ProcessEnv, logger: Logger): ServiceNotifier | undefined {
    return env['NOTIFY_SOCKET'] ? new ServiceNotifier(env, logger) : undefined;
  }

  /** Start-up is complete: the unit becomes active (`systemctl start` returns). */
  ready(status: string): Promise<void> {
    return this.send(['--ready', `--status=${status}`]);
  }

  /** The manager begins to stop. */
  stopping(): Promise<void> {
    this.stopWatchdog();
    return this.send(['STOPPING=1', '--status=stopping']);
  }

  /**
   * Pings the service manager at half the unit's `WatchdogSec` from a timer on the event loop, so
   * a loop that stays blocked (a plugin that never returns) misses its pings and systemd restarts
   * the manager. Nothing when the unit sets no watchdog, or set it for another process.
   */
  startWatchdog(): void {
    const usec = Number(this.env['WATCHDOG_USEC']);
    const pid = this.env['WATCHDOG_PID'];
    if (!Number.isFinite(usec) || usec <= 0 || (pid !== undefined && Number(pid) !== process.pid)) return;
    const everyMs = Math.max(100, Math.floor(usec / 2000));
    this.watchdog = setInterval(() => void this.send(['WATCHDOG=1']), everyMs);
    this.watchdog.unref();
  }

  private stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private send(args: readonly string[]): Promise<void> {
    return new Promise((resolve) => {
      execFile('systemd-notify', [...args], { env: this.env, timeout: NOTIFY_TIMEOUT_MS }, (error) => {
        if (error && !this.saidUnavailable) {
          this.saidUnavailable = true;
          this.logger.warn(
            { err: error.message },
            'cannot notify the service manager through systemd-notify (is systemd installed, and the unit NotifyAccess=all?)',
          );
        }
        resolve();
      });
    });
  }
}
