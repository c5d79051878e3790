import { randomUUID } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { Lease } from '../../infra/windows/types.js';
import type { CompiledConfig } from '../../domain/counters/compile.js';
import { liveReads, liveValues } from '../../domain/counters/live-values.js';
import type { CounterTable, FlushRow } from './counter-table.js';
import type { ConfigStore } from './config-store.js';
import { mapLimit } from '../../infra/map-limit.js';

/**
 * Writes refreshed counter values to the counter table. Entities reach a flush through three
 * window-store queues per organization:
 * - `dirty`: changed by an event (due at once);
 * - `expiry`: an event leaves a window then, so the value drops (due at the first flush tick at or
 *   after that instant; ids are `<tick>:<entity>` so several expiries of one entity are all kept);
 * - `flushing`: leases. Taking entities off `dirty` or `expiry` records a lease for each in the same
 *   atomic step (`<instance>:d:<entity>`, `<instance>:x:<tick>:<entity>`), due two intervals and
 *   ten seconds later, and a finished write removes them. A process that dies anywhere between
 *   taking and writing leaves its leases behind; when they come due, any instance takes them,
 *   again under a lease of its own (`<instance>:<old lease>`), and flushes those entities.
 * Flush ticks fall on multiples of flush_interval_seconds since the epoch.
 */

const TICK_MS = 200;
const WRITE_CHUNK = 1_000;
const ORG_CONCURRENCY = 16;

export const DIRTY_QUEUE = 'dirty';
export const EXPIRY_QUEUE = 'expiry';
const LEASE_QUEUE = 'flushing';

/** `<tick>:<entity>` of the expiry queue -> the entity. */
const afterTick = (id: string): string => id.slice(id.indexOf(':') + 1);

const INSTANCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:/;

/** The entity a lease names: instances first (one per re-lease), then `d:<entity>` or `x:<tick>:<entity>`. */
export function entityOfLease(lease: string): string {
  let rest = lease;
  while (INSTANCE.test(rest)) rest = rest.slice(37);
  if (rest.startsWith('d:')) return rest.slice(2);
  return rest.startsWith('x:') ? afterTick(rest.slice(2)) : rest;
}

/** The queues a flush takes from, with the tag of their leases and the entity each entry names. */
const QUEUES: [queue: string, tag: string, entityOf: (taken: string) => string][] = [
  [DIRTY_QUEUE, 'd:', (id) => id],
  [EXPIRY_QUEUE, 'x:', afterTick],
  [LEASE_QUEUE, '', entityOfLease],
];

/** The flush tick an expiry instant is handled at. */
export const expiryTick = (at: number, flushMs: number): number => Math.ceil(at / flushMs) * flushMs;

export function createFlusher(deps: { platform: Platform; configs: ConfigStore; table: CounterTable }) {
  const { windows, clock, log } = deps.platform;
  const instance = randomUUID();
  const lastTick = new Map<string, number>();

  /**
   * Reads live values of the entities and writes one row each, retired columns carried over. Large
   * flushes go in chunks: chDB runs inside this process, and one huge insert would hold up the
   * pipeline for its whole duration.
   */
  async function write(compiled: CompiledConfig, entityIds: string[]): Promise<void> {
    for (let i = 0; i < entityIds.length; i += WRITE_CHUNK) await writeChunk(compiled, entityIds.slice(i, i + WRITE_CHUNK));
  }

  async function writeChunk(compiled: CompiledConfig, entityIds: string[]): Promise<void> {
    const table = compiled.config.table_name;
    const carried = await deps.table.read(table, compiled.orgId, entityIds, compiled.retired);
    const now = clock.now();
    const reads = liveReads(compiled, now);
    const answers = await windows.readMany(entityIds.map((id) => ({ entity: { scope: compiled.orgId, id }, reads })));
    const rows = entityIds.map((id, i): FlushRow => {
      const kept = carried.get(id) ?? Object.fromEntries(compiled.retired.map((c) => [c.name, null]));
      return { entity_id: id, values: { ...kept, ...liveValues(compiled, answers[i]!) }, updatedAt: now };
    });
    await deps.table.write(table, compiled.orgId, rows);
  }

  /**
   * Takes, writes and releases a chunk at a time, queue after queue: a flush of a million entities
   * holds one chunk's entries, leases and rows, and the ids it wrote, not all its entries and leases
   * at once. An entity already written in this flush (dirty and expiring both) is released without a
   * second row. A write that fails puts its chunk back on the dirty queue; later chunks wait in their
   * queues for the next tick.
   */
  async function flushOrg(compiled: CompiledConfig, now: number): Promise<number> {
    const org = compiled.orgId;
    const written = new Set<string>();
    for (const [queue, tag, entityOf] of QUEUES) {
      const lease: Lease = { queue: LEASE_QUEUE, dueAt: now + 2 * compiled.flushMs + 10_000, prefix: `${instance}:${tag}` };
      for (;;) {
        const taken = await windows.takeDue(org, queue, now, WRITE_CHUNK, lease);
        const entities = [...new Set(taken.map(entityOf))].filter((id) => !written.has(id));
        if (entities.length > 0) {
          try {
            await writeChunk(compiled, entities);
          } catch (err) {
            // Back on the dirty queue: the next tick tries again (the leases stay as a second chance).
            await windows.schedule(org, DIRTY_QUEUE, entities.map((id) => ({ id, dueAt: now })));
            throw err;
          }
          for (const id of entities) written.add(id);
        }
        await windows.unschedule(org, LEASE_QUEUE, taken.map((t) => `${instance}:${tag}${t}`));
        if (taken.length < WRITE_CHUNK) break;
      }
    }
    return written.size;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tickOf = (compiled: CompiledConfig, now: number) => Math.floor(now / compiled.flushMs) * compiled.flushMs;
  // An organization's first interval starts when this process learns of its configuration.
  deps.configs.onChange((c) => {
    if (!lastTick.has(c.orgId)) lastTick.set(c.orgId, tickOf(c, clock.now()));
  });

  async function flushDue(compiled: CompiledConfig, now: number, force: boolean): Promise<void> {
    const due = tickOf(compiled, now);
    const last = lastTick.get(compiled.orgId);
    lastTick.set(compiled.orgId, due);
    if (!force && (last === undefined || last >= due)) return;
    try {
      const n = await flushOrg(compiled, now);
      if (n > 0) log.debug({ org: compiled.orgId, entities: n }, 'counters flushed');
    } catch (err) {
      log.error({ err, org: compiled.orgId }, 'counter flush failed; retrying next tick');
    }
  }

  async function tick(force = false): Promise<void> {
    const now = clock.now();
    await mapLimit(deps.configs.known(), ORG_CONCURRENCY, (c) => flushDue(c, now, force));
  }

  return {
    /** Flushes these entities now (an alert threshold was crossed). */
    flushNow: (compiled: CompiledConfig, entityIds: string[]) => write(compiled, entityIds),

    /** One pass over every organization whose tick is due (tests drive this with a manual clock). */
    tick: () => (running = running.then(() => tick())),

    start(): void {
      timer = setInterval(() => void (running = running.then(() => tick())), TICK_MS);
      timer.unref();
    },

    /** Stops the timer and writes what is pending, so a graceful stop leaves the table current. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
      await tick(true);
    },
  };
}

export type Flusher = ReturnType<typeof createFlusher>;
