/** Where the page is served (`/swarm/ui/`) and where the Docker API of the same manager answers. */
const here = new URL('.', window.location.href);
const marker = here.pathname.lastIndexOf('/swarm/');
const apiRoot = marker >= 0 ? here.pathname.slice(0, marker) : '';

export const pageUrl = (path: string): string => new URL(path, here).toString();

async function answer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = (body as { message?: string } | undefined)?.message ?? (text || response.statusText);
    throw new Error(message);
  }
  return body as T;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return answer<T>(await fetch(pageUrl(path), { signal, headers: { Accept: 'application/json' } }));
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  return answer<T>(
    await fetch(pageUrl(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** A Docker API call on the same manager (`/containers/<id>/stop`), for the actions of a read-write view. */
export async function dockerPost(path: string, method: 'POST' | 'DELETE' = 'POST'): Promise<void> {
  await answer<unknown>(await fetch(`${apiRoot}${path}`, { method }));
}
