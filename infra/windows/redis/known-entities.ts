import { randomBytes } from 'node:crypto';

/**
 * Entity hashes as this store last wrote or read them in full, each with its version (the hash's
 * `v` field then), so that an update of a known entity is computed here (entity-fields.ts) and
 * Redis only checks the version and writes the result (scripts.ts APPLY), where computing it in
 * Lua costs Redis most of an event's CPU. Nothing here is trusted: a write goes through only if
 * the hash still has the version it was computed from, so a stale copy costs a fallback to the
 * script's own arithmetic, never a wrong count.
 *
 * Bounded: at most `entities` entities and `fields` fields in all, least recently used first out;
 * an entity of more than `fieldsPerEntity` fields is not kept (it is computed by the script).
 */
export interface KnownEntitiesBounds {
  entities: number;
  fields: number;
  fieldsPerEntity: number;
}

/**
 * About 160 bytes of heap a field held (its Map entry and two strings; 4.2 KB an entity of the
 * counters workload's 27 fields: docs/counters.md), so the default holds at most about 80 MB.
 */
export const KNOWN_BOUNDS: KnownEntitiesBounds = { entities: 50_000, fields: 500_000, fieldsPerEntity: 256 };

export interface KnownEntity {
  version: string;
  fields: Map<string, string>;
}

export class KnownEntities {
  private readonly known = new Map<string, KnownEntity>();
  private held = 0;

  constructor(readonly bounds: KnownEntitiesBounds) {}

  /** The entity's copy, now the most recently used; the caller may change its fields, then calls `resized`. */
  take(key: string): KnownEntity | undefined {
    const e = this.known.get(key);
    if (e === undefined) return undefined;
    this.known.delete(key);
    this.known.set(key, e);
    return e;
  }

  /** After a taken copy's fields changed from `before` fields: keeps the bounds. */
  resized(key: string, before: number): void {
    const e = this.known.get(key);
    if (e === undefined) return;
    this.held += e.fields.size - before;
    if (e.fields.size > this.bounds.fieldsPerEntity) this.forget(key);
    else this.trim();
  }

  /** The hash as a script answered it (HGETALL's flat list), or forgets it when it has no version. */
  learn(key: string, flat: string[]): void {
    this.forget(key);
    const fields = new Map<string, string>();
    let version: string | undefined;
    for (let i = 0; i < flat.length; i += 2) {
      if (flat[i] === 'v') version = flat[i + 1];
      else fields.set(flat[i]!, flat[i + 1]!);
    }
    if (version === undefined || fields.size > this.bounds.fieldsPerEntity) return;
    this.known.set(key, { version, fields });
    this.held += fields.size;
    this.trim();
  }

  forget(key: string): void {
    const e = this.known.get(key);
    if (e === undefined) return;
    this.known.delete(key);
    this.held -= e.fields.size;
  }

  get size(): { entities: number; fields: number } {
    return { entities: this.known.size, fields: this.held };
  }

  private trim(): void {
    while (this.known.size > this.bounds.entities || this.held > this.bounds.fields) {
      this.forget(this.known.keys().next().value!);
    }
  }
}

/**
 * Versions no other writer ever sets: a random prefix per store and a count. A count alone is not
 * enough: an entity deleted and created again, or another process, would repeat it.
 */
export function versionStamps(): () => string {
  const prefix = randomBytes(9).toString('base64url');
  let n = 0;
  return () => `${prefix}${(++n).toString(36)}`;
}
