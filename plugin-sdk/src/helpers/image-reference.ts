/** The repository part of `repo:tag` or `repo@digest` (a registry's `host:port/` is not a tag). */
export function repositoryOf(reference: string): string {
  const at = reference.indexOf('@');
  if (at >= 0) return reference.slice(0, at);
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}
