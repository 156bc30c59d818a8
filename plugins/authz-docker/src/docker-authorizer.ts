import type { AccessDecision, AccessRequest, Authorizer, WireResponse } from '@swarm/plugin-sdk/access';
import { DockerAuthzErrors } from './errors.js';
import { decodeGoStruct, encodeGoJson } from './go-json.js';
import type { PluginClient } from './plugin-client.js';
import { buildAuthZRequest, type AuthZRequest } from './wire-request.js';
import { responseFields } from './wire-response.js';

export const AUTHZ_REQUEST = 'AuthZPlugin.AuthZReq';
export const AUTHZ_RESPONSE = 'AuthZPlugin.AuthZRes';

const ALLOW: AccessDecision = { allowed: true };

/** authorization.Response: `{"Allow": bool, "Msg": string, "Err": string}`. */
const RESPONSE_FIELDS = { Allow: 'bool', Msg: 'string', Err: 'string' } as const;

/**
 * One engine AuthZ plugin as a swarm authorizer: AuthZReq before the handler, AuthZRes after a
 * buffered answer, with dockerd's texts (`authorization denied by plugin NAME: MSG`, a 403; `plugin
 * NAME failed with error: ...`, a 500). As in dockerd, the answer's `Err` is not read when `Allow`
 * is false: the client sees the `Msg` (possibly empty).
 */
export class DockerAuthorizer implements Authorizer {
  /** The request part built for authorize(), sent again with the response part by review(). */
  private readonly sent = new WeakMap<AccessRequest, AuthZRequest>();

  constructor(
    readonly name: string,
    private readonly client: PluginClient,
  ) {}

  async authorize(request: AccessRequest): Promise<AccessDecision> {
    const authReq = buildAuthZRequest(request);
    this.sent.set(request, authReq);
    return this.ask(AUTHZ_REQUEST, authReq);
  }

  async review(request: AccessRequest, response: WireResponse): Promise<AccessDecision> {
    const authReq = this.sent.get(request) ?? buildAuthZRequest(request);
    const { fields, verdictIgnored } = responseFields(request.wire.method, request.wire.uri, response);
    if (!verdictIgnored) return this.ask(AUTHZ_RESPONSE, { ...authReq, ...fields });
    // dockerd still asks, but answers the handler's error whatever the plugin says
    await this.ask(AUTHZ_RESPONSE, { ...authReq, ...fields }).catch(() => ALLOW);
    return ALLOW;
  }

  close(): void {
    this.client.close();
  }

  private async ask(method: string, authReq: AuthZRequest): Promise<AccessDecision> {
    let answer: Record<string, unknown>;
    try {
      answer = decodeGoStruct(await this.client.call(method, encodeGoJson(authReq)), 'authorization.Response', RESPONSE_FIELDS);
    } catch (error) {
      throw DockerAuthzErrors.callFailed({ name: this.name, reason: (error as Error).message }, { cause: error });
    }
    if (answer.Allow === true) return ALLOW;
    const msg = typeof answer.Msg === 'string' ? answer.Msg : '';
    return { allowed: false, reason: `authorization denied by plugin ${this.name}: ${msg}`, rule: this.name };
  }
}
