import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { keyedSerial } from '../../infra/keyed-serial.js';
import type { WindowStore } from '../../infra/windows/types.js';
import { anchorOn, reanchor, scenesByName, type Anchor } from '../../domain/video/annotation-anchor.js';
import { compile } from '../../domain/video/compile.js';
import type { Diagnostic } from '../../domain/video/diagnostics.js';
import { DEFAULT_LOCK_SECONDS, MAX_ANNOTATIONS } from '../../domain/video/document-bounds.js';
import { applyEdits, type EditOp } from '../../domain/video/script-edit.js';
import { outline, type ScriptOutline } from '../../domain/video/script-outline.js';
import type { Annotation, DocumentStore, VersionKind, VersionRow } from './document-store.js';
import type { RenderJobs, SubmitResult } from './ports.js';

/**
 * Persisted script documents: versions, edit locks, annotations, structured edits and renders.
 * Every call is scoped to the caller's organization (another organization's document is not
 * there) and every change is one new version. Version numbers are taken with a claim in the
 * window store, so two writers (in any process) never both write version N+1: the loser reads
 * the document again and retries, or fails its precondition. Edit locks are window-store holds,
 * taken with one compare-and-set.
 */

export interface Caller {
  orgId: string;
  /** The principal acting: the author of versions, the owner of locks. */
  principal: string;
}

export type LockState = { locked: false } | { locked: true; owner: string; expiresAt: string };

export interface DocumentView {
  id: string;
  name: string;
  source: string;
  metadata: Record<string, unknown>;
  version: number;
  createdAt: string;
  updatedAt: string;
  updatedBy: string;
  lock: LockState;
}

export type DocumentSummary = Omit<DocumentView, 'source' | 'lock'>;

export interface VersionSummary {
  version: number;
  kind: Exclude<VersionKind, 'delete'>;
  author: string;
  createdAt: string;
  ops?: EditOp[];
  restoredFrom?: number;
}

export type RefusalKind =
  | 'not_found'
  | 'precondition_failed'
  | 'locked'
  | 'lock_held'
  | 'busy'
  | 'compile_failed'
  | 'invalid_edit'
  | 'test_failed'
  | 'invalid_anchor'
  | 'too_many_annotations';

/** Why a document call did nothing; the edge turns it into HTTP (api/video/documents-errors.ts). */
export class DocumentRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly diagnostics?: Diagnostic[],
  ) {
    super(message);
  }
}

/** Whether the version the caller expects (If-Match) is this one; undefined: no precondition. */
export type Precondition = ((version: number) => boolean) | undefined;

/** The precondition of a write based on `version` (If-Match over HTTP, `ifVersion` over MCP); none without one. */
export const expectingVersion = (version: number | undefined): Precondition => (version === undefined ? undefined : (current) => current === version);

const LOCKS = 'document-lock';
const VERSIONS = 'document-version';
/** How long a version number stays claimed: far beyond a write's time, short enough that a crash between claim and write blocks little. */
const VERSION_CLAIM_MS = 60_000;
/** How long a writer keeps retrying lost version claims: writers of one document queue up this way. */
const WRITE_PATIENCE_MS = 15_000;

const iso = (ms: number) => new Date(ms).toISOString();

export type Documents = ReturnType<typeof createDocuments>;

export function createDocuments(deps: { store: DocumentStore; windows: WindowStore; jobs: RenderJobs; clock: { now(): number } }) {
  const { store, windows, clock } = deps;
  const serial = keyedSerial();

  async function lockOf(c: Caller, id: string): Promise<LockState> {
    const h = await windows.readHold(c.orgId, LOCKS, id);
    return h ? { locked: true, owner: h.holder, expiresAt: iso(h.expiresAt) } : { locked: false };
  }

  async function present(c: Caller, row: VersionRow, createdAt: number): Promise<DocumentView> {
    return {
      id: row.documentId,
      name: row.name,
      source: row.source,
      metadata: row.metadata,
      version: row.version,
      createdAt: iso(createdAt),
      updatedAt: iso(row.createdAt),
      updatedBy: row.author,
      lock: await lockOf(c, row.documentId),
    };
  }

  async function live(c: Caller, id: string): Promise<{ row: VersionRow; createdAt: number }> {
    const head = await store.head(c.orgId, id);
    if (!head || head.row.kind === 'delete') throw new DocumentRefusal('not_found', `the organization has no document ${id}`);
    return head;
  }

  async function notLockedByAnother(c: Caller, id: string): Promise<void> {
    const lock = await lockOf(c, id);
    if (lock.locked && lock.owner !== c.principal) {
      throw new DocumentRefusal('locked', `document ${id} is locked for editing by ${lock.owner} until ${lock.expiresAt}`, { owner: lock.owner, expiresAt: lock.expiresAt });
    }
  }

  /**
   * Annotations that still point at something, carried to the new version: a scene anchor with
   * its scene, a line anchor with its lines; outdated when what they pointed at is gone.
   */
  async function carryAnnotations(c: Caller, before: VersionRow, after: VersionRow, sceneOrigin?: (number | null)[]): Promise<void> {
    const current = (await store.annotations(c.orgId, after.documentId)).filter((a) => !a.outdated);
    if (current.length === 0) return;
    const next = outline(after.source);
    const outlines = new Map<number, ScriptOutline | null>([[before.version, outline(before.source)]]);
    const moved: Annotation[] = [];
    for (const a of current) {
      if (!outlines.has(a.version)) {
        const old = await store.version(c.orgId, a.documentId, a.version);
        outlines.set(a.version, old ? outline(old.source) : null);
      }
      const from = outlines.get(a.version)!;
      const origin = a.version === before.version && sceneOrigin ? sceneOrigin : from && scenesByName(from, next);
      const to = from && origin ? reanchor({ kind: a.anchor, line: a.line, endLine: a.endLine, scene: a.scene }, from, next, origin) : null;
      moved.push(to ? { ...a, line: to.line, endLine: to.endLine, scene: to.scene, version: after.version } : { ...a, outdated: true });
    }
    await store.putAnnotations(c.orgId, moved);
  }

  /**
   * Writes the next version of a live document: checks the precondition and the lock, builds the
   * version from the current one, claims its number and appends it. A lost claim (another writer
   * got there first) reads the document again.
   */
  async function write(
    c: Caller,
    id: string,
    precondition: Precondition,
    build: (head: VersionRow) => { kind: VersionKind; name?: string; source?: string; metadata?: Record<string, unknown>; ops?: EditOp[]; restoredFrom?: number; sceneOrigin?: (number | null)[] },
  ): Promise<{ row: VersionRow; createdAt: number }> {
    // Writers of one document in this process take turns: racing for the claim here only makes losers
    // poll and re-read while the winner writes (8 at once on a loaded machine ran past the patience).
    return serial(`${c.orgId}/${id}`, () => writeInTurn(c, id, precondition, build));
  }

  async function writeInTurn(
    c: Caller,
    id: string,
    precondition: Precondition,
    build: Parameters<typeof write>[3],
  ): Promise<{ row: VersionRow; createdAt: number }> {
    const deadline = performance.now() + WRITE_PATIENCE_MS;
    for (let attempt = 1; performance.now() < deadline; attempt++) {
      const head = await live(c, id);
      if (precondition && !precondition(head.row.version)) {
        throw new DocumentRefusal('precondition_failed', `If-Match does not match document ${id}: its current version is ${head.row.version} (ETag "v${head.row.version}")`, {
          currentVersion: head.row.version,
        });
      }
      await notLockedByAnother(c, id);
      const { sceneOrigin, ...change } = build(head.row);
      const row: VersionRow = {
        documentId: id,
        version: head.row.version + 1,
        author: c.principal,
        createdAt: clock.now(),
        name: change.name ?? head.row.name,
        source: change.source ?? head.row.source,
        metadata: change.metadata ?? head.row.metadata,
        kind: change.kind,
        ...(change.ops ? { ops: change.ops } : {}),
        ...(change.restoredFrom ? { restoredFrom: change.restoredFrom } : {}),
      };
      const claim = `${id}:${row.version}`;
      const [won] = await windows.claim(c.orgId, VERSIONS, [claim], VERSION_CLAIM_MS);
      if (!won) {
        // The winner is writing its version: back off (with jitter, so losers do not collide again) until it lands.
        await sleep(Math.min(20 * attempt, 200) + Math.random() * 30);
        continue;
      }
      try {
        await store.append(c.orgId, row);
      } catch (err) {
        await windows.release(c.orgId, VERSIONS, [claim]).catch(() => undefined);
        throw err;
      }
      if (row.kind !== 'delete') await carryAnnotations(c, head.row, row, sceneOrigin);
      return { row, createdAt: head.createdAt };
    }
    throw new DocumentRefusal('busy', `other writes of document ${id} kept winning; retry`);
  }

  const errorsOf = (source: string): Diagnostic[] | null => {
    const r = compile(source);
    return r.ok ? null : r.diagnostics;
  };

  return {
    lockOf,

    /**
     * Creates a document (version 1). With an idempotency key the id is derived from it, so a
     * retry answers the document the first call made instead of a second one.
     */
    async create(c: Caller, body: { name: string; source: string; metadata?: Record<string, unknown> }, idempotencyKey?: string): Promise<{ document: DocumentView; created: boolean }> {
      const id = idempotencyKey
        ? `doc_${createHash('sha256').update(`${c.orgId}\u0000${idempotencyKey}`).digest('hex').slice(0, 24)}`
        : `doc_${randomBytes(12).toString('hex')}`;
      const [won] = await windows.claim(c.orgId, VERSIONS, [`${id}:1`], VERSION_CLAIM_MS);
      const existing = won ? null : await store.head(c.orgId, id);
      if (existing?.row.kind === 'delete') throw new DocumentRefusal('not_found', `the document this Idempotency-Key created, ${id}, was deleted`);
      if (existing) return { document: await present(c, existing.row, existing.createdAt), created: false };
      if (!won) throw new DocumentRefusal('busy', 'a request with this Idempotency-Key is still being served; retry');
      const row: VersionRow = { documentId: id, version: 1, kind: 'create', author: c.principal, createdAt: clock.now(), name: body.name, source: body.source, metadata: body.metadata ?? {} };
      await store.append(c.orgId, row);
      return { document: await present(c, row, row.createdAt), created: true };
    },

    async get(c: Caller, id: string): Promise<DocumentView> {
      const head = await live(c, id);
      return present(c, head.row, head.createdAt);
    },

    async list(c: Caller, page: { limit: number; cursor?: string }): Promise<{ documents: DocumentSummary[]; nextCursor: string | null }> {
      const rows = await store.list(c.orgId, page.cursor ?? '', page.limit + 1);
      const documents = rows.slice(0, page.limit).map(({ row, createdAt }) => ({
        id: row.documentId,
        name: row.name,
        metadata: row.metadata,
        version: row.version,
        createdAt: iso(createdAt),
        updatedAt: iso(row.createdAt),
        updatedBy: row.author,
      }));
      return { documents, nextCursor: rows.length > page.limit ? documents.at(-1)!.id : null };
    },

    async put(c: Caller, id: string, body: { name?: string; source?: string; metadata?: Record<string, unknown> }, precondition: Precondition): Promise<DocumentView> {
      const w = await write(c, id, precondition, () => ({ kind: 'put', ...body }));
      return present(c, w.row, w.createdAt);
    },

    async remove(c: Caller, id: string, precondition: Precondition): Promise<void> {
      await write(c, id, precondition, () => ({ kind: 'delete' }));
      await windows.dropHold(c.orgId, LOCKS, id, c.principal);
    },

    async versions(c: Caller, id: string, page: { limit: number; before?: number }): Promise<{ versions: VersionSummary[]; nextCursor: string | null }> {
      const head = await live(c, id);
      const rows = await store.versions(c.orgId, id, page.before ?? head.row.version + 1, page.limit + 1);
      const versions = rows.slice(0, page.limit).map((v) => ({
        version: v.version,
        kind: v.kind as VersionSummary['kind'],
        author: v.author,
        createdAt: iso(v.createdAt),
        ...(v.ops ? { ops: v.ops } : {}),
        ...(v.restoredFrom ? { restoredFrom: v.restoredFrom } : {}),
      }));
      return { versions, nextCursor: rows.length > page.limit ? String(versions.at(-1)!.version) : null };
    },

    async version(c: Caller, id: string, version: number): Promise<VersionSummary & { name: string; source: string; metadata: Record<string, unknown> }> {
      await live(c, id);
      const v = await store.version(c.orgId, id, version);
      if (!v || v.kind === 'delete') throw new DocumentRefusal('not_found', `document ${id} has no version ${version}`);
      return {
        version: v.version,
        kind: v.kind,
        author: v.author,
        createdAt: iso(v.createdAt),
        name: v.name,
        source: v.source,
        metadata: v.metadata,
        ...(v.ops ? { ops: v.ops } : {}),
        ...(v.restoredFrom ? { restoredFrom: v.restoredFrom } : {}),
      };
    },

    /** Makes an earlier version's name, source and metadata current again, as a new version. */
    async restore(c: Caller, id: string, version: number, precondition: Precondition): Promise<DocumentView> {
      await live(c, id);
      const old = await store.version(c.orgId, id, version);
      if (!old || old.kind === 'delete') throw new DocumentRefusal('not_found', `document ${id} has no version ${version}`);
      const w = await write(c, id, precondition, () => ({ kind: 'restore', name: old.name, source: old.source, metadata: old.metadata, restoredFrom: version }));
      return present(c, w.row, w.createdAt);
    },

    /** Applies structured edits to the current source; the result must compile, or nothing is written. */
    async edit(c: Caller, id: string, ops: EditOp[], precondition: Precondition): Promise<DocumentView> {
      const w = await write(c, id, precondition, (head) => {
        const r = applyEdits(head.source, ops);
        if (!r.ok) {
          const where = `ops[${r.index}]`;
          if (r.code === 'test-failed') throw new DocumentRefusal('test_failed', `${where}: test failed: ${r.message}`, { op: r.index });
          throw new DocumentRefusal('invalid_edit', `${where}: ${r.message}`, { op: r.index });
        }
        const errors = errorsOf(r.source);
        if (errors) throw new DocumentRefusal('compile_failed', 'the edited script does not compile; nothing was written', {}, errors);
        return { kind: 'edit', source: r.source, ops, sceneOrigin: r.sceneOrigin };
      });
      return present(c, w.row, w.createdAt);
    },

    /** Queues a render of the current version; the job records which version it was. */
    async render(c: Caller, id: string): Promise<{ result: SubmitResult; version: number }> {
      const head = await live(c, id);
      const result = await deps.jobs.submitSource(c.orgId, { source: head.row.source, origin: 'document', document: { id, version: head.row.version } });
      return { result, version: head.row.version };
    },

    /** Takes the edit lock for the caller, or renews the caller's; another principal's lock is refused with its owner and expiry. */
    async lock(c: Caller, id: string, ttlSeconds = DEFAULT_LOCK_SECONDS): Promise<{ locked: true; owner: string; expiresAt: string; token: string }> {
      await live(c, id);
      const { won, hold } = await windows.hold(c.orgId, LOCKS, id, { holder: c.principal, token: `lck_${randomBytes(16).toString('hex')}`, ttlMs: ttlSeconds * 1000 });
      const state = { locked: true as const, owner: hold.holder, expiresAt: iso(hold.expiresAt) };
      if (!won) throw new DocumentRefusal('lock_held', `document ${id} is locked by ${hold.holder} until ${state.expiresAt}`, state);
      return { ...state, token: hold.token };
    },

    async readLock(c: Caller, id: string): Promise<LockState> {
      await live(c, id);
      return lockOf(c, id);
    },

    /** Releases the caller's lock; a lock of another principal is refused, no lock is nothing to do. */
    async unlock(c: Caller, id: string): Promise<void> {
      await live(c, id);
      if (await windows.dropHold(c.orgId, LOCKS, id, c.principal)) return;
      const lock = await lockOf(c, id);
      if (lock.locked) throw new DocumentRefusal('lock_held', `document ${id} is locked by ${lock.owner}; only its owner releases it`, lock);
    },

    async annotate(
      c: Caller,
      id: string,
      body: { text: string; line?: number; endLine?: number; scene?: number; parentId?: string; version?: number },
    ): Promise<Annotation> {
      const head = await live(c, id);
      const existing = await store.annotations(c.orgId, id);
      if (existing.length >= MAX_ANNOTATIONS) throw new DocumentRefusal('too_many_annotations', `document ${id} has ${MAX_ANNOTATIONS} annotations, the most it keeps; delete some first`);
      let anchor: Anchor | null;
      let version = head.row.version;
      if (body.parentId !== undefined) {
        const parent = existing.find((a) => a.id === body.parentId);
        if (!parent) throw new DocumentRefusal('invalid_anchor', `parentId: document ${id} has no annotation ${body.parentId}`);
        anchor = { kind: parent.anchor, line: parent.line, endLine: parent.endLine, scene: parent.scene };
        version = parent.version;
      } else {
        const at = body.version ?? head.row.version;
        const source = at === head.row.version ? head.row.source : (await store.version(c.orgId, id, at))?.source;
        if (source === undefined) throw new DocumentRefusal('invalid_anchor', `version: document ${id} has no version ${at}`);
        const onVersion = outline(source);
        anchor = anchorOn(onVersion, body);
        if (!anchor) throw new DocumentRefusal('invalid_anchor', `the anchor (line ${body.line ?? '-'}, endLine ${body.endLine ?? '-'}, scene ${body.scene ?? '-'}) is outside version ${at}, which has ${onVersion.lines.length} lines and ${onVersion.scenes.length} scenes`);
        if (at !== head.row.version) {
          const current = outline(head.row.source);
          anchor = reanchor(anchor, onVersion, current, scenesByName(onVersion, current));
          if (!anchor) throw new DocumentRefusal('invalid_anchor', `what the anchor points at in version ${at} is gone from the current version ${head.row.version}`);
        }
      }
      const a: Annotation = {
        id: `ann_${randomBytes(12).toString('hex')}`,
        documentId: id,
        text: body.text,
        anchor: anchor.kind,
        line: anchor.line,
        endLine: anchor.endLine,
        scene: anchor.scene,
        version,
        author: c.principal,
        createdAt: iso(clock.now()),
        ...(body.parentId !== undefined ? { parentId: body.parentId } : {}),
        resolved: false,
        outdated: false,
      };
      await store.putAnnotations(c.orgId, [a]);
      return a;
    },

    async annotations(c: Caller, id: string): Promise<Annotation[]> {
      await live(c, id);
      return store.annotations(c.orgId, id);
    },

    async resolveAnnotation(c: Caller, id: string, annotationId: string, resolved: boolean): Promise<Annotation> {
      await live(c, id);
      const a = (await store.annotations(c.orgId, id)).find((x) => x.id === annotationId);
      if (!a) throw new DocumentRefusal('not_found', `document ${id} has no annotation ${annotationId}`);
      const { resolvedBy: _by, resolvedAt: _at, ...rest } = a;
      const next: Annotation = resolved ? { ...rest, resolved, resolvedBy: c.principal, resolvedAt: iso(clock.now()) } : { ...rest, resolved };
      await store.putAnnotations(c.orgId, [next]);
      return next;
    },

    /** Deletes an annotation and its replies. */
    async deleteAnnotation(c: Caller, id: string, annotationId: string): Promise<void> {
      await live(c, id);
      const all = await store.annotations(c.orgId, id);
      if (!all.some((a) => a.id === annotationId)) throw new DocumentRefusal('not_found', `document ${id} has no annotation ${annotationId}`);
      await store.deleteAnnotations(c.orgId, id, [annotationId, ...all.filter((a) => a.parentId === annotationId).map((a) => a.id)]);
    },
  };
}
