/** One deny rule; a call matching every given field is denied with `msg`. */
export interface DenyRule {
  readonly method?: string | RegExp;
  readonly uri?: string | RegExp;
  readonly user?: string | RegExp;
  /** Tested against the request body the plugin got (decoded; empty when none came). */
  readonly body?: RegExp;
  /** Which call the rule judges: AuthZReq (default) or AuthZRes. */
  readonly phase?: 'request' | 'response';
  readonly msg?: string;
  /** Instead of denying, fail: answer 500 `{"Err": fail}`. */
  readonly fail?: string;
}

export type PluginMode = 'answer' | 'error' | 'garbage' | 'hang-up';

export interface AuthzPluginOptions {
  readonly socketPath?: string;
  readonly port?: number;
  readonly host?: string;
  readonly implements?: readonly string[];
  readonly rules?: readonly DenyRule[];
  readonly mode?: PluginMode;
  readonly answerDelayMs?: number;
  readonly record?: boolean;
  /** Serve https with this certificate and key (PEM). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
}

export interface RecordedCall {
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly raw: string;
  readonly body: Record<string, unknown> | undefined;
}

/** An AuthZReq or AuthZRes body with the call it came in. */
export interface AuthzCall {
  readonly phase: 'request' | 'response';
  readonly User?: string;
  readonly UserAuthNMethod?: string;
  readonly RequestMethod?: string;
  readonly RequestUri?: string;
  readonly RequestBody?: string;
  readonly RequestHeaders?: Record<string, string>;
  readonly RequestPeerCertificates?: string[];
  readonly ResponseStatusCode?: number;
  readonly ResponseBody?: string;
  readonly ResponseHeaders?: Record<string, string>;
}

export interface AuthzPlugin {
  readonly socketPath: string | undefined;
  /** `unix:///path.sock` or `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Calls per path (`/AuthZPlugin.AuthZReq`: 12), kept even when not recording. */
  readonly counts: Record<string, number>;
  authzCalls(): AuthzCall[];
  setRules(rules: readonly DenyRule[]): void;
  setMode(mode: PluginMode): void;
  /** Answer every AuthZ call 200 with exactly this text (undefined: answer by the rules again). */
  setAnswerText(text: string | undefined): void;
  setRecording(on: boolean): void;
  clear(): void;
  close(): Promise<void>;
}

export function denyingRule(
  rules: readonly DenyRule[],
  phase: 'request' | 'response',
  request: Record<string, unknown>,
): DenyRule | undefined;
export function startAuthzPlugin(options?: AuthzPluginOptions): Promise<AuthzPlugin>;
