import { randomUUID } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import type { Lease } from '../../infra/windows/types.js';
import type { CompiledConfig } from '../../domain/counters/compile.js';
import { liveReads, liveValues } from '../../domain/counters/live-values.js';
import { nextExpiryReads, nextExpiryTick } from '../../domain/counters/next-expiry.js';
import type { CounterTable, FlushRow } from './counter-table.js';
import type { ConfigStore } from './config-store.js';
import { mapLimit } from '../../infra/map-limit.js';

/**
 * Writes refreshed counter values to the counter table. Entities reach a flush through window-store
 * queues per organization:
 * - `dirty`: changed by an event (due at once);
 * - `expiry-next`: one member per entity, due at the first flush tick at or after the earliest
 *   instant a bucket of it leaves a window (so a value drops then). A flush of it schedules the
 *   entity's next such tick, read from the store (the lowest live bucket of each windowed counter);
 * - `expiry`: the earlier form, `<tick>:<entity>` per expiry; still taken (and its entities given
 *   a next expiry) until a deploy's last members came due. Its own queue name keeps an entity id
 *   holding ':' from being misread in either form;
 * - `flushing`: leases. Taking entities off the other queues records a lease for each in the same
 *   atomic step (`<instance>:d:<entity>`, `<instance>:x:e:<entity>`, `<instance>:x:<tick>:<entity>`),
 *   due two intervals and ten seconds later, and a finished write (and, for expiries, the next
 *   one's schedule) removes them. A process that dies anywhere between taking and that leaves its
 *   leases behind; when they come due, any instance takes them, again under a lease of its own
 *   (`<instance>:<old lease>`), and flushes those entities, scheduling the next expiry of the
 *   expiry leases' ones.
 * Flush ticks fall on multiples of flush_interval_seconds since the epoch.
 */

const TICK_MS = 200;
const WRITE_CHUNK = 1_000;
const ORG_CONCURRENCY = 16;

export const DIRTY_QUEUE = 'dirty';
export const EXPIRY_QUEUE = 'expiry-next';
/** The expiry queue before one member per entity (`<tick>:<entity>`), drained after an upgrade. */
export const OLD_EXPIRY_QUEUE = 'expiry';
const LEASE_QUEUE = 'flushing';

/** `<tick>:<entity>` of the old expiry queue -> the entity. */
const afterTick = (id: string): string => id.slice(id.indexOf(':') + 1);

const INSTANCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:/;

/** What a queue entry names: the entity, and whether it came due as an expiry (then it is rescheduled). */
interface Target {
  entity: string;
  expiring: boolean;
}

/**
 * The entity a lease names: instances first (one per re-lease), then `d:<entity>`, `x:e:<entity>`
 * or `x:<tick>:<entity>` (a tick is digits). An instance of before the upgrade reads `x:e:<entity>`
 * as the entity too, so leases of either version flush the right entity on both.
 */
export function targetOfLease(lease: string): Target {
  let rest = lease;
  while (INSTANCE.test(rest)) rest = rest.slice(37);
  if (rest.startsWith('d:')) return { entity: rest.slice(2), expiring: false };
  if (rest.startsWith('x:e:')) return { entity: rest.slice(4), expiring: true };
  return rest.startsWith('x:') ? { entity: afterTick(rest.slice(2)), expiring: true } : { entity: rest, expiring: false };
}

/** The queues a flush takes from, with the tag of their leases and what each entry names. */
const QUEUES: [queue: string, tag: string, targetOf: (taken: string) => Target][] = [
  [DIRTY_QUEUE, 'd:', (id) => ({ entity: id, expiring: false })],
  [EXPIRY_QUEUE, 'x:e:', (id) => ({ entity: id, expiring: true })],
  [OLD_EXPIRY_QUEUE, 'x:', (id) => ({ entity: afterTick(id), expiring: true })],
  [LEASE_QUEUE, '', targetOfLease],
];

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

  /**
   * Writes one row per entity and answers, for those of them in `expiring`, the tick their values
   * next drop (null: no windowed bucket left), read in the same store call as the values.
   */
  async function writeChunk(compiled: CompiledConfig, entityIds: string[], expiring: ReadonlySet<string> = new Set()): Promise<Map<string, number | null>> {
    const table = compiled.config.table_name;
    const carried = await deps.table.read(table, compiled.orgId, entityIds, compiled.retired);
    const now = clock.now();
    const reads = liveReads(compiled, now);
    const withNext = [...reads, ...nextExpiryReads(compiled, now)];
    const answers = await windows.readMany(entityIds.map((id) => ({ entity: { scope: compiled.orgId, id }, reads: expiring.has(id) ? withNext : reads })));
    const next = new Map<string, number | null>();
    const rows = entityIds.map((id, i): FlushRow => {
      const kept = carried.get(id) ?? Object.fromEntries(compiled.retired.map((c) => [c.name, null]));
      if (expiring.has(id)) next.set(id, nextExpiryTick(compiled, answers[i]!.slice(reads.length)));
      return { entity_id: id, values: { ...kept, ...liveValues(compiled, answers[i]!) }, updatedAt: now };
    });
    await deps.table.write(table, compiled.orgId, rows);
    return next;
  }

  /** The next expiry tick of entities already written in this flush (dirty and expiring both). */
  async function readNext(compiled: CompiledConfig, entityIds: string[]): Promise<Map<string, number | null>> {
    const reads = nextExpiryReads(compiled, clock.now());
    const answers = await windows.readMany(entityIds.map((id) => ({ entity: { scope: compiled.orgId, id }, reads })));
    return new Map(entityIds.map((id, i) => [id, nextExpiryTick(compiled, answers[i]!)]));
  }

  /**
   * Takes, writes and releases a chunk at a time, queue after queue: a flush of a million entities
   * holds one chunk's entries, leases and rows, and the ids it wrote, not all its entries and leases
   * at once. An entity already written in this flush (dirty and expiring both) is released without a
   * second row, an expiring one after its next expiry is read. A write that fails puts its chunk back
   * on the dirty queue; later chunks wait in their queues for the next tick.
   *
   * The next expiry is scheduled before the leases are dropped: a crash between the two leaves a
   * lease that flushes the entity (and schedules it) again, never an entity without its expiry.
   * Schedules keep the earliest due time, so an event applied while this reads keeps a member due
   * no later than the true next expiry: either this read saw its bucket, or its batch's own
   * schedule (issued after its apply) names that bucket's tick and is the earlier of the two.
   */
  async function flushOrg(compiled: CompiledConfig, now: number): Promise<number> {
    const org = compiled.orgId;
    const written = new Set<string>();
    for (const [queue, tag, targetOf] of QUEUES) {
      const lease: Lease = { queue: LEASE_QUEUE, dueAt: now + 2 * compiled.flushMs + 10_000, prefix: `${instance}:${tag}` };
      for (;;) {
        const taken = await windows.takeDue(org, queue, now, WRITE_CHUNK, lease);
        const targets = taken.map(targetOf);
        const expiring = new Set(targets.filter((t) => t.expiring).map((t) => t.entity));
        const entities = [...new Set(targets.map((t) => t.entity))].filter((id) => !written.has(id));
        let next = new Map<string, number | null>();
        if (entities.length > 0) {
          try {
            next = await writeChunk(compiled, entities, expiring);
          } catch (err) {
            // Back on the dirty queue: the next tick tries again (the leases stay as a second chance).
            await windows.schedule(org, DIRTY_QUEUE, entities.map((id) => ({ id, dueAt: now })));
            throw err;
          }
          for (const id of entities) written.add(id);
        }
        const rest = [...expiring].filter((id) => !next.has(id));
        if (rest.length > 0) for (const [id, tick] of await readNext(compiled, rest)) next.set(id, tick);
        const due = [...next].flatMap(([id, dueAt]) => (dueAt === null ? [] : [{ id, dueAt }]));
        if (due.length > 0) await windows.schedule(org, EXPIRY_QUEUE, due);
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
