import { Tokens, type ExtensionKind } from '@swarm/plugin-sdk';

/** The token under which the provider `name` of an extension kind is registered in a deployment container. */
export function named(kind: ExtensionKind, name: string): string {
  return `${kind}:${name}`;
}

/** Human name of an extension kind, for messages ("filter", "strategy", ...). */
export function kindLabel(kind: ExtensionKind): string {
  switch (kind) {
    case Tokens.ClusterDriver:
      return 'cluster driver';
    case Tokens.Filter:
      return 'filter';
    case Tokens.Strategy:
      return 'strategy';
    case Tokens.DiscoveryBackend:
      return 'discovery backend';
    case Tokens.WebExtension:
      return 'web extension';
    case Tokens.Authenticator:
      return 'authenticator';
    case Tokens.Authorizer:
      return 'authorizer';
    case Tokens.AdmissionController:
      return 'admission controller';
  }
}
