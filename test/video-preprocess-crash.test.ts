import { once } from 'node:events';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceSchema } from '../schemas/http/video.js';
import { videoService } from '../services/video.js';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { makeLongSourceMedia } from './fixtures/source-media.js';
import { videoClient } from './fixtures/video-client.js';
import { requireAddress, shouldRun } from './support/infra.js';
import { startTestProcess } from './support/process.js';

/**
 * A process running a preprocessing job SIGKILLed in the middle of it: the job's message was not
 * committed, so the bus delivers it to the next worker, which runs it; the job completes once,
 * with one set of shots and thumbnails. On Kafka the worker is a process of its own (role
 * `preprocess`) beside an API process; on the embedded log, which one process writes, it is a
 * process of role `all`, killed and started again on the same data.
 */

const children: Child[] = [];
let api: Awaited<ReturnType<typeof startTestProcess>> | undefined;
afterAll(async () => {
  await Promise.all(children.map((c) => kill(c, 'SIGKILL')));
  await api?.stop();
});

const ROUNDS = 6;
const media = makeLongSourceMedia(ROUNDS);
type Client = ReturnType<typeof videoClient>;

function spawnChild(env: Record<string, string>): Child {
  const c = spawnFixture('./video-preprocess-child.ts', { LOG_LEVEL: 'info', VIDEO_ASR: 'off', ...env });
  children.push(c);
  return c;
}
const ready = async (c: Child) => (await c.line('ready', (l) => l.startsWith('READY'))).slice('READY '.length);

/** Uploads the long media and queues its preprocessing; answers the source id. */
async function queued(client: Client): Promise<string> {
  const up = await client.upload('/api/sources/upload', media.content, 'long.mp4');
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  const id = up.body.id as string;
  expect((await client.call('POST', `/api/sources/${id}/preprocess`)).status).toBe(202);
  return id;
}

/** Waits until a worker reports the job running, then SIGKILLs `victim` before the job can finish. */
async function killWhileRunning(client: Client, id: string, victim: Child): Promise<void> {
  for (;;) {
    const s = await client.call('GET', `/api/sources/${id}/preprocess`);
    expect(s.body.status, 'the job finished before the kill: make the media longer').not.toMatch(/complete|failed/);
    if (s.body.status === 'running') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  victim.process.kill('SIGKILL');
  if (victim.process.exitCode === null && victim.process.signalCode === null) await once(victim.process, 'exit');
}

async function settled(client: Client, id: string) {
  const until = Date.now() + 150_000;
  for (;;) {
    const s = await client.call('GET', `/api/sources/${id}/preprocess`);
    if (s.body.status === 'complete' || s.body.status === 'failed') break;
    if (Date.now() > until) throw new Error(`preprocessing still ${String(s.body.status)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return sourceSchema.parse((await client.call('GET', `/api/sources/${id}`)).body);
}

/** Files under a blob folder, without the blob store's own metadata files. */
const blobsUnder = async (dir: string) => (await readdir(dir)).filter((f) => !f.endsWith('.meta.json')).sort();

/** One set of results: every shot where it was made, one thumbnail each, and no other blob of the job. */
async function expectOneSetOfResults(source: ReturnType<typeof sourceSchema.parse>, blobsDir: string): Promise<void> {
  expect(source).toMatchObject({ status: 'ready', preprocess: { status: 'complete', progress: 1 }, width: 640, height: 360 });
  expect(Math.abs(source.durationSeconds! - media.durationSeconds)).toBeLessThan(0.1);
  expect(source.shots).toHaveLength(media.cuts.length + 1);
  for (const [i, cut] of media.cuts.entries()) expect(Math.abs(source.shots[i + 1]!.start - cut)).toBeLessThanOrEqual(0.2);
  const ids = source.thumbnails.map((t) => t.id);
  expect(ids).toEqual(source.shots.map((s) => s.thumbnailId));
  expect(new Set(ids).size).toBe(ids.length);
  expect(await blobsUnder(path.join(blobsDir, 'sources', source.id, 'thumbnails'))).toEqual([...ids].sort());
  expect(await blobsUnder(path.join(blobsDir, 'sources', source.id, 'preprocess'))).toEqual([`${source.preprocess.jobId}.json`]);
}

const mentions = (c: Child, message: string, id: string) => c.lines.filter((l) => l.includes(`"${message}"`) && l.includes(id)).length;

describe.skipIf(!shouldRun('kafkaBrokers'))('preprocess worker killed mid-job (Kafka)', () => {
  it('the job is picked up again by another worker and completes exactly once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-preprocess-crash-'));
    const shared = { KAFKA_BROKERS: requireAddress('kafkaBrokers'), BLOBS_DIR: path.join(dir, 'blobs'), PREPROCESS_TOPIC: `sources.preprocess.t${process.pid}-${Date.now()}` };
    api = await startTestProcess({ services: [videoService], role: 'api', env: shared });
    const worker = (name: string) => spawnChild({ ...shared, WEIR_ROLE: 'preprocess', DATA_DIR: path.join(dir, name), CHDB_PATH: path.join(dir, name, 'clickhouse') });
    const first = worker('a');
    await ready(first);
    const client = videoClient(api.url, 'key_a');
    const id = await queued(client);
    await killWhileRunning(client, id, first);

    const second = worker('b');
    await ready(second);
    const done = await settled(client, id);
    await expectOneSetOfResults(done, shared.BLOBS_DIR);
    expect(mentions(first, 'source preprocessed', id)).toBe(0);
    expect(mentions(second, 'source preprocessed', id)).toBe(1);
    // The record reached complete in one write: versions of it are rows, counted before any merge folds them.
    const rows = await (
      await api.platform.analytics.query({
        query: "SELECT count() AS n FROM video_sources WHERE source_id = {id:String} AND JSONExtractString(record, 'preprocess', 'status') = 'complete'",
        query_params: { id },
        format: 'JSONEachRow',
      })
    ).json<{ n: string }>();
    expect(Number(rows[0]!.n)).toBe(1);
    await kill(second, 'SIGTERM');
  }, 240_000);
});

describe('process killed mid-job (embedded log)', () => {
  it('the job is delivered again after a restart on the same data and completes exactly once', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-preprocess-crash-embedded-'));
    const env = { WEIR_ROLE: 'all', API_KEYS: 'org_a:key_a', DATA_DIR: dir, CHDB_PATH: path.join(dir, 'clickhouse') };
    const first = spawnChild(env);
    const before = videoClient(await ready(first), 'key_a');
    const id = await queued(before);
    await killWhileRunning(before, id, first);

    const second = spawnChild(env);
    const client = videoClient(await ready(second), 'key_a');
    const done = await settled(client, id);
    await expectOneSetOfResults(done, path.join(dir, 'blobs'));
    expect(mentions(first, 'source preprocessed', id)).toBe(0);
    expect(mentions(second, 'source preprocessed', id)).toBe(1);
    // The one process records as well as works: the complete record was written once.
    expect(mentions(first, 'source preprocessing recorded', id) + mentions(second, 'source preprocessing recorded', id)).toBe(1);
    await kill(second, 'SIGTERM');
  }, 240_000);
});
