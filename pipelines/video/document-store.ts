import type { Analytics, Migration } from '../../infra/analytics/types.js';
import { clickhouseDateTime } from '../../domain/rules/values.js';
import type { EditOp } from '../../domain/video/script-edit.js';

/**
 * Script documents in ClickHouse, per organization: every change is an immutable version row
 * (create, put, edit, restore; a delete is a tombstone version), so a document is its newest
 * version and its history is the rest. Version numbers are handed out by a claim in the window
 * store (documents.ts), so two writers never write the same one. Annotations are one row per
 * annotation and change (ReplacingMergeTree keeps the newest).
 */

export const documentStoreMigration: Migration = {
  id: 'video-documents-001',
  statements: [
    `CREATE TABLE IF NOT EXISTS video_document_versions (
      org_id String,
      document_id String,
      version UInt32,
      kind LowCardinality(String),
      author String,
      created_at DateTime64(3, 'UTC'),
      name String,
      source String,
      metadata String,
      ops String,
      restored_from UInt32
    ) ENGINE = ReplacingMergeTree ORDER BY (org_id, document_id, version)`,
    `CREATE TABLE IF NOT EXISTS video_document_annotations (
      org_id String,
      document_id String,
      annotation_id String,
      record String,
      deleted UInt8,
      row_version UInt64
    ) ENGINE = ReplacingMergeTree(row_version) ORDER BY (org_id, document_id, annotation_id)`,
  ],
};

export type VersionKind = 'create' | 'put' | 'edit' | 'restore' | 'delete';

export interface VersionRow {
  documentId: string;
  version: number;
  kind: VersionKind;
  /** The principal that made the change. */
  author: string;
  /** Epoch ms. */
  createdAt: number;
  name: string;
  source: string;
  metadata: Record<string, unknown>;
  /** The operations of an edit. */
  ops?: EditOp[];
  /** The version a restore brought back. */
  restoredFrom?: number;
}

export interface Annotation {
  id: string;
  documentId: string;
  text: string;
  anchor: 'line' | 'scene';
  line: number;
  endLine: number;
  scene: number | null;
  /** The version line and scene refer to: the newest one the annotation was carried to. */
  version: number;
  author: string;
  createdAt: string;
  parentId?: string;
  resolved: boolean;
  resolvedBy?: string;
  resolvedAt?: string;
  /** What the annotation pointed at is gone from a later version; line and scene are where it was. */
  outdated: boolean;
}

interface Row {
  document_id: string;
  version: number;
  kind: VersionKind;
  author: string;
  at: string;
  name: string;
  source: string;
  metadata: string;
  ops: string;
  restored_from: number;
}

const COLUMNS = 'document_id, version, kind, author, toUnixTimestamp64Milli(created_at) AS at, name, source, metadata, ops, restored_from';

const fromRow = (r: Row): VersionRow => ({
  documentId: r.document_id,
  version: Number(r.version),
  kind: r.kind,
  author: r.author,
  createdAt: Number(r.at),
  name: r.name,
  source: r.source,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  ...(r.ops ? { ops: JSON.parse(r.ops) as EditOp[] } : {}),
  ...(Number(r.restored_from) > 0 ? { restoredFrom: Number(r.restored_from) } : {}),
});

export type DocumentStore = ReturnType<typeof createDocumentStore>;

export function createDocumentStore(analytics: Analytics, clock: { now(): number }) {
  let rowVersion = 0;
  const nextRowVersion = () => (rowVersion = Math.max(rowVersion + 1, clock.now() * 1000));

  async function select<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    return (await analytics.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();
  }

  return {
    async append(orgId: string, v: VersionRow): Promise<void> {
      await analytics.insert({
        table: 'video_document_versions',
        values: [
          {
            org_id: orgId,
            document_id: v.documentId,
            version: v.version,
            kind: v.kind,
            author: v.author,
            created_at: clickhouseDateTime(v.createdAt),
            name: v.name,
            source: v.source,
            metadata: JSON.stringify(v.metadata),
            ops: v.ops ? JSON.stringify(v.ops) : '',
            restored_from: v.restoredFrom ?? 0,
          },
        ],
        format: 'JSONEachRow',
      });
    },
    /** The newest version (a tombstone when deleted) and when the document was created; null when there is none. */
    async head(orgId: string, documentId: string): Promise<{ row: VersionRow; createdAt: number } | null> {
      const rows = await select<Row & { first: string }>(
        `SELECT ${COLUMNS}, (SELECT toUnixTimestamp64Milli(min(created_at)) FROM video_document_versions WHERE org_id = {org:String} AND document_id = {id:String}) AS first
         FROM video_document_versions FINAL WHERE org_id = {org:String} AND document_id = {id:String} ORDER BY version DESC LIMIT 1`,
        { org: orgId, id: documentId },
      );
      return rows[0] ? { row: fromRow(rows[0]), createdAt: Number(rows[0].first) } : null;
    },
    async version(orgId: string, documentId: string, version: number): Promise<VersionRow | null> {
      const rows = await select<Row>(`SELECT ${COLUMNS} FROM video_document_versions FINAL WHERE org_id = {org:String} AND document_id = {id:String} AND version = {v:UInt32}`, {
        org: orgId,
        id: documentId,
        v: version,
      });
      return rows[0] ? fromRow(rows[0]) : null;
    },
    /** Versions older than `before`, newest first, without their texts; tombstones left out. */
    async versions(orgId: string, documentId: string, before: number, limit: number): Promise<Omit<VersionRow, 'source' | 'metadata' | 'name'>[]> {
      const rows = await select<Row>(
        `SELECT document_id, version, kind, author, toUnixTimestamp64Milli(created_at) AS at, ops, restored_from
         FROM video_document_versions FINAL
         WHERE org_id = {org:String} AND document_id = {id:String} AND version < {before:UInt32} AND kind != 'delete'
         ORDER BY version DESC LIMIT {limit:UInt32}`,
        { org: orgId, id: documentId, before, limit },
      );
      return rows.map((r) => {
        const { source: _s, metadata: _m, name: _n, ...rest } = fromRow({ ...r, name: '', source: '', metadata: '{}' });
        return rest;
      });
    },
    /** Documents not deleted with ids after `after`, in id order: the newest version of each without its source. */
    async list(orgId: string, after: string, limit: number): Promise<{ row: Omit<VersionRow, 'source'>; createdAt: number }[]> {
      const rows = await select<{ document_id: string; v: number; k: VersionKind; a: string; t: string; n: string; m: string; f: string }>(
        `SELECT * FROM (
           SELECT document_id, max(version) AS v, argMax(kind, version) AS k, argMax(author, version) AS a, toUnixTimestamp64Milli(max(created_at)) AS t,
                  argMax(name, version) AS n, argMax(metadata, version) AS m, toUnixTimestamp64Milli(min(created_at)) AS f
           FROM video_document_versions FINAL
           WHERE org_id = {org:String} AND document_id > {after:String}
           GROUP BY document_id
         ) WHERE k != 'delete' ORDER BY document_id LIMIT {limit:UInt32}`,
        { org: orgId, after, limit },
      );
      return rows.map((r) => ({
        row: { documentId: r.document_id, version: Number(r.v), kind: r.k, author: r.a, createdAt: Number(r.t), name: r.n, metadata: JSON.parse(r.m) as Record<string, unknown> },
        createdAt: Number(r.f),
      }));
    },

    async putAnnotations(orgId: string, annotations: Annotation[]): Promise<void> {
      if (annotations.length === 0) return;
      const v = nextRowVersion();
      await analytics.insert({
        table: 'video_document_annotations',
        values: annotations.map((a) => ({ org_id: orgId, document_id: a.documentId, annotation_id: a.id, record: JSON.stringify(a), deleted: 0, row_version: v })),
        format: 'JSONEachRow',
      });
    },
    async deleteAnnotations(orgId: string, documentId: string, ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      const v = nextRowVersion();
      await analytics.insert({
        table: 'video_document_annotations',
        values: ids.map((id) => ({ org_id: orgId, document_id: documentId, annotation_id: id, record: '', deleted: 1, row_version: v })),
        format: 'JSONEachRow',
      });
    },
    /** A document's annotations, oldest first. */
    async annotations(orgId: string, documentId: string): Promise<Annotation[]> {
      const rows = await select<{ record: string }>(
        'SELECT record FROM video_document_annotations FINAL WHERE org_id = {org:String} AND document_id = {id:String} AND deleted = 0',
        { org: orgId, id: documentId },
      );
      return rows.map((r) => JSON.parse(r.record) as Annotation).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
  };
}
