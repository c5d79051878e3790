import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../infra/clock.js';
import { screeningService } from '../services/screening.js';
import { startTestProcess } from './support/process.js';
import { FIXTURE_LISTS_DIR } from './fixtures/sanctions/paths.js';

/**
 * Issue 10: an Idempotency-Key works as Stripe's: the same key and body answer the stored result,
 * a different body under the key is a 409 naming it, and the audit keeps every distinct screening.
 */
describe('screening Idempotency-Key', () => {
  // Near the real time: the table's TTL drops rows already expired by the machine's clock.
  const clock = manualClock(Date.now());
  let p: Awaited<ReturnType<typeof startTestProcess>>;
  const call = async (path: string, body: unknown, key?: string, apiKey = 'key_a') => {
    const res = await fetch(`${p.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const auditRows = async (ids: string[]) => {
    const rs = await p.platform.analytics.query({ query: 'SELECT audit_id, name FROM screenings FINAL WHERE audit_id IN {ids:Array(String)} ORDER BY name', query_params: { ids }, format: 'JSONEachRow' });
    return rs.json<{ audit_id: string; name: string }>();
  };
  const eventuallyRows = async (ids: string[], count: number) => {
    for (let i = 0; i < 200; i++) {
      const rows = await auditRows(ids);
      if (rows.length >= count) return rows;
      await new Promise((r) => setTimeout(r, 100));
    }
    return auditRows(ids);
  };

  beforeAll(async () => {
    p = await startTestProcess({ services: [screeningService], env: { SANCTIONS_DATA_DIR: FIXTURE_LISTS_DIR, API_KEYS: 'org_a:key_a:enterprise,org_b:key_b:enterprise' }, clock });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('answers a retry with the same body from the stored result, without screening again', async () => {
    const first = await call('/v1/aml/screen', { name: 'Emily Johnson' }, 'same-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retry = await call('/v1/aml/screen', { name: 'Emily Johnson' }, 'same-1');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await eventuallyRows([first.body.audit_id], 1)).toEqual([{ audit_id: first.body.audit_id, name: 'Emily Johnson' }]);
  });

  it('refuses the same key with a different body with a 409 naming the key, and keeps the first screening in the audit', async () => {
    const first = await call('/v1/aml/screen', { name: 'Maria Lopez' }, 'reused-1');
    const other = await call('/v1/aml/screen', { name: 'John Smith' }, 'reused-1');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ status: 'error', error: 'idempotency_key_reused', message: expect.stringContaining('"reused-1"') });
    expect(await eventuallyRows([first.body.audit_id], 1)).toEqual([{ audit_id: first.body.audit_id, name: 'Maria Lopez' }]);
    // The key is the organization's: another organization may use the same one.
    expect((await call('/v1/aml/screen', { name: 'John Smith' }, 'reused-1', 'key_b')).status).toBe(200);
  });

  it('gives a single screen and item 0 of a batch different ids, and refuses one key for both', async () => {
    const single = await call('/v1/aml/screen', { name: 'Ana Silva' }, 'single-1');
    const batch = await call('/v1/aml/screen/batch', { names: ['Ana Silva', 'Peter Brown'] }, 'batch-1');
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].audit_id).not.toBe(single.body.audit_id);
    expect((await call('/v1/aml/screen/batch', { names: ['Ana Silva'] }, 'single-1')).status).toBe(409);
    const replay = await call('/v1/aml/screen/batch', { names: ['Ana Silva', 'Peter Brown'] }, 'batch-1');
    expect(replay.body).toEqual(batch.body);
    const ids = [single.body.audit_id, ...batch.body.results.map((r: { audit_id: string }) => r.audit_id)];
    expect(new Set(ids).size).toBe(3);
    expect(await eventuallyRows(ids, 3)).toHaveLength(3);
  });

  it('forgets a key after 24 hours; refuses an empty or overlong key', async () => {
    await call('/v1/aml/screen', { name: 'Old Name' }, 'expiring-1');
    expect((await call('/v1/aml/screen', { name: 'New Name' }, 'expiring-1')).status).toBe(409);
    clock.advance(24 * 3600 * 1000 + 1000);
    const later = await call('/v1/aml/screen', { name: 'New Name' }, 'expiring-1');
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    const long = await call('/v1/aml/screen', { name: 'X' }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.message).toMatch(/Idempotency-Key/);
  });
});
