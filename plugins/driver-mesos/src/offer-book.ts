import type { Offer } from './protocol.js';

/**
 * Outstanding offers by agent. Each offer is declined after the offer timeout unless a task
 * used it first (Swarm classic keeps offers for `mesos.offertimeout`, then gives them back).
 */
export class OfferBook {
  private readonly offers = new Map<string, { offer: Offer; timer: NodeJS.Timeout }>();

  constructor(
    private readonly timeoutMs: number,
    private readonly onExpired: (offer: Offer) => void,
  ) {}

  add(offer: Offer): void {
    this.remove(offer.id.value);
    const timer = setTimeout(() => {
      if (this.offers.delete(offer.id.value)) this.onExpired(offer);
    }, this.timeoutMs);
    timer.unref();
    this.offers.set(offer.id.value, { offer, timer });
  }

  remove(offerId: string): Offer | undefined {
    const entry = this.offers.get(offerId);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.offers.delete(offerId);
    return entry.offer;
  }

  forAgent(agentId: string): Offer[] {
    return this.all().filter((offer) => offer.agent_id.value === agentId);
  }

  /** Remove and return every offer of an agent (they are about to be accepted). */
  take(agentId: string): Offer[] {
    const taken = this.forAgent(agentId);
    for (const offer of taken) this.remove(offer.id.value);
    return taken;
  }

  all(): Offer[] {
    return [...this.offers.values()].map((entry) => entry.offer);
  }

  /** Forget everything (the stream ended: the master rescinds all offers of a disconnected framework). */
  clear(): void {
    for (const entry of this.offers.values()) clearTimeout(entry.timer);
    this.offers.clear();
  }
}
