import { randomBytes } from 'node:crypto';

export interface ExecSession {
  id: string;
  containerId: string;
  podName: string;
  cmd: string[];
  tty: boolean;
  attachStdin: boolean;
  attachStdout: boolean;
  attachStderr: boolean;
  running: boolean;
  exitCode: number | null;
  /** Set while the exec runs with a TTY: a resize goes to the API server's resize channel. */
  resize?: (width: number, height: number) => void;
}

const MAX_SESSIONS = 10_000;

/** Exec instances made through the engine emulator, as dockerd keeps them for `exec inspect`. */
export class ExecSessions {
  private readonly sessions = new Map<string, ExecSession>();

  create(fields: Omit<ExecSession, 'id' | 'running' | 'exitCode'>): ExecSession {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session: ExecSession = { ...fields, id: randomBytes(32).toString('hex'), running: false, exitCode: null };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string): ExecSession | undefined {
    return this.sessions.get(id);
  }
}

/** The exit code in the API server's final exec `Status`. */
export function exitCodeOf(status: {
  status?: string;
  reason?: string;
  details?: { causes?: Array<{ reason?: string; message?: string }> };
}): number {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((item) => item.reason === 'ExitCode');
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : 126;
}
