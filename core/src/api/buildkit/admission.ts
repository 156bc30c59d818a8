import type { EngineFetch } from '@swarm/plugin-sdk/access';
import type { ContainerConfig } from '@swarm/plugin-sdk/docker';
import type { RequestContext } from '../context.js';
import { refuseHiddenImage, refuseTakenImageName } from '../scoped-images.js';
import type { BuildKitQuestion } from './question.js';

/**
 * The admission controllers' verdict on a BuildKit request, as on a classic build's: the
 * container its steps run in (`NetworkMode` host for `network.host` or `--network host`,
 * `Privileged` for `security.insecure`, `CgroupParent`, `ExtraHosts`) with every URL the engine
 * would fetch (`fetches`: the remote contexts and sources as `remote`, the Dockerfile's `ADD`s).
 * A scoped caller's images must be ones they may see. Throws the refusal.
 */
export async function admitBuildKit(ctx: RequestContext, asked: BuildKitQuestion, dockerfile: readonly EngineFetch[] = []): Promise<void> {
  const access = ctx.access;
  const control = ctx.api.access;
  if (!access || !control?.enforcing) return;
  const config: ContainerConfig = { Image: '', HostConfig: asked.host };
  const fetches: EngineFetch[] = [...asked.urls.map((url): EngineFetch => ({ from: 'remote', url })), ...dockerfile];
  // `source` holds one URL, for a controller before plugin API 2.3 (which reads only it): one question per URL
  const sources = asked.urls.length === 0 ? [undefined] : asked.urls;
  for (const url of sources) {
    await control.admit({
      caller: access.caller,
      action: 'image.build',
      config,
      ...(url ? { source: { parameter: 'remote', url } } : {}),
      fetches,
    });
  }
  for (const image of asked.images) refuseHiddenImage(ctx, image);
}

/** The names a build gives its image: each must be the caller's to take, as a classic build's `-t`. */
export function refuseTakenNames(ctx: RequestContext, names: readonly string[]): void {
  for (const name of names) refuseTakenImageName(ctx, name, 'owned');
}
