import type { Clock } from '../../infra/clock.js';

/**
 * Per-organization values read on every check (scoring weights, webhook configuration), kept for
 * `maxAgeMs` and then refreshed in the background: a check never waits for ClickHouse once the
 * organization's value was read, and many checks arriving together start one read, not one each.
 * Before this, every check that came in while an expired entry was being read queried ClickHouse
 * and waited for it (on a loaded machine the niced chDB threads took tens of milliseconds: the
 * risk bench's p99). `set` makes a write of this process visible at once.
 */
export class RefreshingCache<V> {
  private readonly entries = new Map<string, { at: number; value: V; writes: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly clock: Clock,
    private readonly maxAgeMs: number,
    private readonly load: (key: string) => Promise<V>,
    private readonly onRefreshError: (key: string, err: unknown) => void,
  ) {}

  async get(key: string): Promise<V> {
    const hit = this.entries.get(key);
    if (!hit) return this.refresh(key);
    if (this.clock.now() - hit.at >= this.maxAgeMs) this.refresh(key).catch((err: unknown) => this.onRefreshError(key, err));
    return hit.value;
  }

  /** Reads the value now (one read at a time per key) and keeps it. */
  refresh(key: string): Promise<V> {
    let p = this.loading.get(key);
    if (!p) {
      const at = this.clock.now();
      const writes = this.entries.get(key)?.writes ?? 0;
      p = this.load(key)
        .then((value) => {
          // A set() while the read was under way is newer than what the read found.
          const cur = this.entries.get(key);
          if (cur && cur.writes !== writes) return cur.value;
          this.entries.set(key, { at, value, writes });
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, p);
    }
    return p;
  }

  set(key: string, value: V): void {
    this.entries.set(key, { at: this.clock.now(), value, writes: (this.entries.get(key)?.writes ?? 0) + 1 });
  }
}
