import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { BlobStore } from '../../infra/blobs/types.js';
import { clickhouseDateTime } from '../../domain/rules/values.js';
import type { SourceReader, SourceRecord } from '../../domain/video/source.js';
import { mediaGate } from './media-gate.js';
import { UnreadableMediaError, probeMedia, type Probe } from './probe.js';
import { pageOfRecords } from './page-cursor.js';

/**
 * Long-form sources: the media under `sources/<id>/media`, a sidecar subtitle file under
 * `sources/<id>/subtitles`, thumbnails under `sources/<id>/thumbnails/<thumbId>`, the outcome of the
 * latest preprocessing job under `sources/<id>/preprocess/<jobId>.json`; the record (with
 * everything preprocessing derived) in ClickHouse, one row per version, a deletion a tombstone.
 * The type is sniffed from the content; only audio and video are taken.
 */

export const sourceStoreMigration: Migration = {
  id: 'video-sources-001',
  statements: [
    `CREATE TABLE IF NOT EXISTS video_sources (
      org_id String,
      source_id String,
      record String,
      deleted UInt8,
      created_at DateTime64(3, 'UTC'),
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, source_id)`,
  ],
};

export const SOURCE_TYPES = ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska', 'audio/mpeg', 'audio/wav', 'audio/ogg', 'audio/x-m4a', 'audio/flac'];

export class UnsupportedSourceError extends Error {}

const SOURCE_ID = /^src_[0-9a-f]{32}$/;
const THUMB_ID = /^th_[0-9a-f]{16}$/;
export const sourceKeys = {
  media: (id: string) => `sources/${id}/media`,
  subtitles: (id: string) => `sources/${id}/subtitles`,
  thumbnail: (id: string, thumbId: string) => `sources/${id}/thumbnails/${thumbId}`,
  /** What a preprocessing job found, written by the worker before it reports the job finished. */
  outcome: (id: string, jobId: string) => `sources/${id}/preprocess/${jobId}.json`,
};
export const newThumbnailId = () => `th_${randomBytes(8).toString('hex')}`;

export type SourceStore = ReturnType<typeof createSourceStore>;

/** Media as stored: its sniffed type, its size and what ffprobe read of it. */
export interface StoredMedia {
  mimetype: string;
  sizeBytes: number;
  probe: Probe;
}

/** Bytes of a source's head that its type is sniffed from (ID3 tags with cover art can be long). */
const SNIFF_BYTES = 1024 * 1024;

const newId = () => `src_${randomBytes(16).toString('hex')}`;

/** The media type of a source's first bytes; UnsupportedSourceError unless it is audio or video of a taken type. */
async function sniffSource(head: Buffer, name: string): Promise<string> {
  const sniffed = await fileTypeFromBuffer(head);
  if (!sniffed || !SOURCE_TYPES.includes(sniffed.mime)) {
    throw new UnsupportedSourceError(`the content of ${JSON.stringify(name)} is ${sniffed ? sniffed.mime : 'of no recognised media type'}; accepted: ${SOURCE_TYPES.join(', ')}`);
  }
  return sniffed.mime;
}

export function createSourceStore(blobs: BlobStore, analytics: Analytics, now: () => number) {
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, now() * 1000));
  const write = (r: SourceRecord, deleted: boolean) =>
    analytics.insert({
      table: 'video_sources',
      values: [{ org_id: r.orgId, source_id: r.id, record: JSON.stringify(r), deleted: deleted ? 1 : 0, created_at: clickhouseDateTime(Date.parse(r.createdAt)), version: nextVersion() }],
      format: 'JSONEachRow',
    });
  async function read(where: string, params: Record<string, unknown>): Promise<SourceRecord | null> {
    const rows = await (
      await analytics.query({ query: `SELECT record FROM video_sources FINAL WHERE ${where} AND deleted = 0 LIMIT 1`, query_params: params, format: 'JSONEachRow' })
    ).json<{ record: string }>();
    return rows[0] ? (JSON.parse(rows[0].record) as SourceRecord) : null;
  }
  const get = (orgId: string, id: string) => (SOURCE_ID.test(id) ? read('org_id = {org:String} AND source_id = {id:String}', { org: orgId, id }) : Promise.resolve(null));
  /** Any organization's source: only for the public media addresses, which name it by its unguessable id. */
  const byId = (id: string) => (SOURCE_ID.test(id) ? read('source_id = {id:String}', { id }) : Promise.resolve(null));

  /** The record of media already stored under the source's key (by storeMedia); on failure the media goes too. */
  async function register(orgId: string, id: string, name: string, media: StoredMedia, subtitles?: Buffer): Promise<SourceRecord> {
    const at = new Date(now()).toISOString();
    const video = media.probe.streams.find((st) => st.type === 'video');
    const record: SourceRecord = {
      id,
      orgId,
      name,
      status: 'registered',
      mimetype: media.mimetype,
      sizeBytes: media.sizeBytes,
      durationSeconds: media.probe.durationSeconds,
      width: video?.width ?? null,
      height: video?.height ?? null,
      streams: media.probe.streams,
      hasSubtitles: subtitles !== undefined,
      preprocess: { status: 'none', progress: 0 },
      transcript: [],
      shots: [],
      thumbnails: [],
      silences: [],
      diagnostics: [],
      createdAt: at,
      updatedAt: at,
    };
    try {
      if (subtitles) await blobs.put(sourceKeys.subtitles(id), subtitles, 'text/plain');
      // The record last: a source is there once its bytes are.
      await write(record, false);
    } catch (err) {
      // No record, so nothing may name these bytes again.
      await Promise.all([blobs.delete(sourceKeys.media(id)), blobs.delete(sourceKeys.subtitles(id))]).catch(() => undefined);
      throw err;
    }
    return record;
  }

  /**
   * Streams media to the source's key, its type sniffed from the first bytes before any is
   * stored, then reads it with ffprobe: UnsupportedSourceError for content that is not audio or
   * video of a taken type, MediaTooLargeError past `maxBytes`, UnreadableMediaError when ffprobe
   * cannot read it or finds no audio or video stream; whatever the error, nothing is left stored.
   */
  async function storeMedia(id: string, name: string, body: Readable, maxBytes: number): Promise<StoredMedia> {
    const gate = mediaGate({ headBytes: SNIFF_BYTES, maxBytes, check: (head) => sniffSource(head, name) });
    // A short body can fail the gate before the blob store reads it: the error is kept for put, not thrown unheard.
    gate.stream.on('error', () => undefined);
    // pipe() passes no errors on: a body that breaks off (a cut upload, a dropped answer) fails the gate, and so put.
    body.once('error', (err) => gate.stream.destroy(err));
    // The type is known only once the head has passed, so the blob carries none: the record does.
    const stored = await blobs.put(sourceKeys.media(id), body.pipe(gate.stream)).catch((err: unknown) => {
      // The gate failed: what is left of the body is read and dropped, so its sender can finish.
      body.unpipe(gate.stream);
      body.resume();
      throw err;
    });
    try {
      const probe = await probeStored(id);
      if (!probe.streams.some((st) => st.type === 'video' || st.type === 'audio')) throw new UnreadableMediaError('the media has no audio or video stream');
      return { mimetype: gate.verdict()!, sizeBytes: stored.sizeBytes, probe };
    } catch (err) {
      await blobs.delete(sourceKeys.media(id));
      throw err;
    }
  }

  /** ffprobe of stored media, on a scratch copy: ffprobe seeks (an MP4's index may come last). */
  async function probeStored(id: string): Promise<Probe> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-source-probe-'));
    try {
      const file = path.join(dir, 'media');
      const found = await blobs.get(sourceKeys.media(id));
      if (!found) throw new Error(`the media of ${id} is gone from the blob store`);
      await pipeline(found.body, createWriteStream(file));
      return await probeMedia(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    newId,
    storeMedia,
    register,
    /** Forgets media stored by storeMedia that never became a source (a later check refused the upload). */
    discardMedia: (id: string) => blobs.delete(sourceKeys.media(id)),
    get,
    byId,
    /** Writes a new version of the record (preprocessing's progress and results). */
    async update(record: SourceRecord): Promise<void> {
      await write({ ...record, updatedAt: new Date(now()).toISOString() }, false);
    },
    /**
     * Names `jobId` as the source's preprocessing job, queued; the results of the previous job stay
     * readable until the new one finishes, its stored outcome goes (only the latest job's is kept).
     */
    async queuePreprocess(record: SourceRecord, jobId: string): Promise<SourceRecord> {
      const next: SourceRecord = { ...record, status: 'preprocessing', preprocess: { status: 'queued', progress: 0, jobId }, diagnostics: [], updatedAt: new Date(now()).toISOString() };
      await write(next, false);
      if (record.preprocess.jobId) await blobs.delete(sourceKeys.outcome(record.id, record.preprocess.jobId));
      return next;
    },
    /** How many of the organization's sources have a preprocessing job queued or running. */
    async preprocessing(orgId: string): Promise<number> {
      const [row] = await (
        await analytics.query({
          query: "SELECT count() AS n FROM video_sources FINAL WHERE org_id = {org:String} AND deleted = 0 AND JSONExtractString(record, 'preprocess', 'status') IN ('queued', 'running')",
          query_params: { org: orgId },
          format: 'JSONEachRow',
        })
      ).json<{ n: string | number }>();
      return Number(row?.n ?? 0);
    },
    async list(orgId: string, limit: number, cursor?: string): Promise<{ items: SourceRecord[]; nextCursor: string | null } | undefined> {
      return pageOfRecords<SourceRecord>(analytics, 'video_sources', 'source_id', orgId, limit, cursor, (s) => [s.createdAt, s.id]);
    },
    /** Deletes the organization's source with every derived record and blob; false when it has none of that id. */
    async remove(orgId: string, id: string): Promise<boolean> {
      const record = await get(orgId, id);
      if (!record) return false;
      // The record first: once the tombstone is written no reader finds the source, and a crash leaves only unnamed bytes.
      await write(record, true);
      await Promise.all([
        blobs.delete(sourceKeys.media(id)),
        blobs.delete(sourceKeys.subtitles(id)),
        ...(record.preprocess.jobId ? [blobs.delete(sourceKeys.outcome(id, record.preprocess.jobId))] : []),
        ...record.thumbnails.map((t) => blobs.delete(sourceKeys.thumbnail(id, t.id))),
      ]);
      return true;
    },
    /** The media's bytes (optionally a range) with the record; null when there is no such source. */
    async openMedia(id: string, range?: { start: number; end: number }) {
      return (await byId(id)) ? blobs.get(sourceKeys.media(id), range) : null;
    },
    /** The sidecar subtitle file uploaded with the source, if any. */
    openSubtitles: (id: string) => blobs.get(sourceKeys.subtitles(id)),
    /** A thumbnail's bytes (optionally a range); null unless the source lists it. */
    async openThumbnail(id: string, thumbId: string, range?: { start: number; end: number }) {
      if (!THUMB_ID.test(thumbId)) return null;
      const record = await byId(id);
      if (!record?.thumbnails.some((t) => t.id === thumbId)) return null;
      return blobs.get(sourceKeys.thumbnail(id, thumbId), range);
    },
  } satisfies SourceReader & Record<string, unknown>;
}
