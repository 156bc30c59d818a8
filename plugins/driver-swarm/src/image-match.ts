import type { ImageSummary } from '@swarm/plugin-sdk/docker';

/** `repo[:tag]` or `repo@digest`, with the registry port kept in the repository. */
export function parseRepositoryTag(reference: string): { repository: string; tag: string } {
  const at = reference.indexOf('@');
  if (at >= 0) return { repository: reference.slice(0, at), tag: reference.slice(at + 1) };
  const colon = reference.lastIndexOf(':');
  if (colon > reference.lastIndexOf('/')) return { repository: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  return { repository: reference, tag: '' };
}

function matchesId(id: string, wanted: string): boolean {
  if (id === wanted || (wanted.length > 2 && id.startsWith(wanted))) return true;
  const hex = id.startsWith('sha256:') ? id.slice(7) : id;
  return hex === wanted || (wanted.length > 2 && hex.startsWith(wanted));
}

function matchesReference(references: readonly string[] | null | undefined, repository: string, tag: string): boolean {
  return (references ?? []).some((reference) => {
    const parsed = parseRepositoryTag(reference);
    return parsed.repository === repository && parsed.tag === tag;
  });
}

/** Swarm classic's image match: ID or ID prefix (with or without `sha256:`), repo:tag (default `latest`), repo@digest. */
export function matchImage(image: ImageSummary, idOrName: string): boolean {
  if (idOrName === '') return false;
  if (matchesId(image.Id, idOrName)) return true;
  const { repository, tag } = parseRepositoryTag(idOrName);
  return (
    matchesReference(image.RepoTags, repository, tag || 'latest') || (tag !== '' && matchesReference(image.RepoDigests, repository, tag))
  );
}
