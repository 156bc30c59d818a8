import { ANONYMOUS_USER, type Caller } from '@swarm/plugin-sdk/access';
import type { Binding, RulesConfig } from './binding.js';

/** The bindings by the user or group they name, so a caller's are found without a scan of them all. */
export class BindingIndex {
  private readonly byUser = new Map<string, Binding[]>();
  private readonly byGroup = new Map<string, Binding[]>();
  private readonly order = new Map<Binding, number>();

  constructor(private readonly config: RulesConfig) {
    config.bindings.forEach((binding, index) => {
      this.order.set(binding, index);
      const [map, key] = binding.user !== undefined ? [this.byUser, binding.user] : [this.byGroup, binding.group!];
      map.set(key, [...(map.get(key) ?? []), binding]);
    });
  }

  /** The bindings that name the caller, by user or by one of their groups, in the order of the options. */
  forCaller(caller: Caller): readonly Binding[] {
    // The anonymous caller has only what the `anonymous` option gives (bindings cannot name it).
    if (caller.user === ANONYMOUS_USER) return this.config.anonymous ? [this.config.anonymous] : [];
    const found = new Set(this.byUser.get(caller.user) ?? []);
    for (const group of caller.groups) for (const binding of this.byGroup.get(group) ?? []) found.add(binding);
    return [...found].sort((a, b) => this.order.get(a)! - this.order.get(b)!);
  }
}
