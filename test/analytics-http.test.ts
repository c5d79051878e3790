import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseClientConfigOptions, type ClickHouseError } from '@clickhouse/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalytics } from '../infra/analytics/index.js';
import type { Analytics } from '../infra/analytics/types.js';
import { serveAnalyticsInterface, type AnalyticsInterface } from '../infra/analytics/http-interface/index.js';
import { Slots } from '../infra/analytics/http-interface/slots.js';

/**
 * The ClickHouse HTTP interface over the process's chDB, used with @clickhouse/client exactly as an
 * analyst would: the same client, the same calls, the same errors as against a ClickHouse server.
 */
/** An analyst's client; its own error log is off, the refusals are asserted instead. */
const clientOf = (opts: ClickHouseClientConfigOptions) => createClient({ ...opts, log: { level: ClickHouseLogLevel.OFF } });

describe('analytics HTTP interface', () => {
  let writer: Analytics;
  let server: AnalyticsInterface;
  let analyst: ClickHouseClient;
  const limits = { maxExecutionSeconds: 5, maxResultRows: 1000, maxResultBytes: 10_000_000 };

  const count = async () =>
    Number((await (await writer.query({ query: 'SELECT count() AS n FROM items', format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);
  const refusal = async (p: Promise<unknown>) => {
    const err = (await p.then(() => null, (e: unknown) => e)) as ClickHouseError | null;
    expect(err, 'the call must fail').not.toBeNull();
    return { code: err!.code, type: err!.type, message: err!.message };
  };

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-analytics-http-'));
    writer = await createAnalytics({ username: 'default', password: '', database: 'weir', chdbPath: dir });
    await writer.command({ query: 'CREATE TABLE IF NOT EXISTS items (id String, amount Float64) ENGINE = MergeTree ORDER BY id' });
    await writer.insert({ table: 'items', format: 'JSONEachRow', values: [{ id: 'a', amount: 10 }, { id: 'b', amount: 20 }, { id: 'c', amount: 30 }] });
    server = await serveAnalyticsInterface({
      chdbPath: dir, database: 'weir', host: '127.0.0.1', port: 0, limits,
      users: [{ user: 'analyst', password: 's3cret:with-colon' }],
      log: pino({ level: 'silent' }),
    });
    analyst = clientOf({ url: server.url, username: 'analyst', password: 's3cret:with-colon' });
  });
  afterAll(async () => {
    await analyst?.close();
    await server?.close();
    await writer?.close();
  });

  it('answers a SELECT in the client default database', async () => {
    const rs = await analyst.query({ query: 'SELECT id, amount FROM items ORDER BY id', format: 'JSON' });
    const body = await rs.json<{ id: string; amount: number }>();
    expect(body.data).toEqual([{ id: 'a', amount: 10 }, { id: 'b', amount: 20 }, { id: 'c', amount: 30 }]);
    expect(await (await analyst.query({ query: 'SELECT currentDatabase() AS db', format: 'JSONEachRow' })).json()).toEqual([{ db: 'weir' }]);
  });

  it('binds query parameters sent as param_* (values that would break a spliced string included)', async () => {
    const rows = await (
      await analyst.query({
        query: 'SELECT id FROM items WHERE amount >= {min:Float64} AND id != {skip:String} AND has({ids:Array(String)}, id) ORDER BY id',
        query_params: { min: 15, skip: "x' OR 1=1 --", ids: ['b', "c", "it's"] },
        format: 'JSONEachRow',
      })
    ).json();
    expect(rows).toEqual([{ id: 'b' }, { id: 'c' }]);
  });

  it('honours a FORMAT clause, default_format and GET /?query=', async () => {
    const rs = await analyst.exec({ query: 'SELECT id FROM items ORDER BY id FORMAT JSONEachRow' });
    let text = '';
    for await (const chunk of rs.stream) text += chunk.toString();
    expect(text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);

    const auth = { Authorization: `Basic ${Buffer.from('analyst:s3cret:with-colon').toString('base64')}` };
    const get = await fetch(`${server.url}/?query=${encodeURIComponent('SELECT sum(amount) FROM items')}&default_format=CSV`, { headers: auth });
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('60\n');
    const tsv = await fetch(`${server.url}/?database=system&user=analyst&password=${encodeURIComponent('s3cret:with-colon')}`, {
      method: 'POST', body: "SELECT name FROM databases WHERE name = 'weir'",
    });
    expect(await tsv.text()).toBe('weir\n');
  });

  it('answers /ping and GET / as a server does', async () => {
    expect(await analyst.ping()).toEqual({ success: true });
    const root = await fetch(`${server.url}/`);
    expect(await root.text()).toBe('Ok.\n');
    expect((await fetch(`${server.url}/play`)).status).toBe(404);
    expect((await fetch(`${server.url}/`, { method: 'DELETE' })).status).toBe(405);
  });

  it('compresses the answer when the client asks, and reads a compressed request', async () => {
    const zipped = clientOf({ url: server.url, username: 'analyst', password: 's3cret:with-colon', compression: { response: true, request: true } });
    const rows = await (await zipped.query({ query: 'SELECT count() AS n FROM items', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ n: '3' }]);
    await zipped.close();

    const raw = await fetch(`${server.url}/?enable_http_compression=1&default_format=CSV`, {
      method: 'POST',
      headers: { 'X-ClickHouse-User': 'analyst', 'X-ClickHouse-Key': 's3cret:with-colon', 'Accept-Encoding': 'gzip', 'Content-Encoding': 'gzip' },
      body: gzipSync('SELECT 41 + 1'),
    });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
    expect(await raw.text()).toBe('42\n'); // fetch inflates it
  });

  it('refuses INSERT, ALTER, DROP and SET readonly=0 with ClickHouse READONLY errors, the data unchanged', async () => {
    const before = await count();
    for (const attempt of [
      () => analyst.insert({ table: 'items', format: 'JSONEachRow', values: [{ id: 'z', amount: 1 }] }),
      () => analyst.command({ query: 'ALTER TABLE items DELETE WHERE 1' }),
      () => analyst.command({ query: 'DROP TABLE items' }),
      () => analyst.command({ query: 'SET readonly = 0' }),
      () => analyst.command({ query: 'TRUNCATE TABLE items' }),
      () => analyst.query({ query: "SELECT * FROM file('/etc/passwd', 'LineAsString')" }),
      () => analyst.command({ query: 'SELECT 1; INSERT INTO items VALUES (\'y\', 2)' }),
    ]) {
      const err = await refusal(attempt());
      expect(err).toMatchObject({ code: '164', type: 'READONLY' });
    }
    const settingsChange = await refusal(analyst.query({ query: 'SELECT 1 SETTINGS readonly = 0' }));
    expect(settingsChange.type).toBe('READONLY');
    expect(await count()).toBe(before);
    // The writer's own session never saw readonly: it still writes.
    await writer.insert({ table: 'items', format: 'JSONEachRow', values: [{ id: 'w', amount: 0 }] });
    expect(await count()).toBe(before + 1);
    await writer.command({ query: "ALTER TABLE items DELETE WHERE id = 'w' SETTINGS mutations_sync = 1" });
  });

  it('refuses wrong credentials with AUTHENTICATION_FAILED (516)', async () => {
    for (const [username, password] of [['analyst', 'wrong'], ['nobody', 's3cret:with-colon'], ['default', '']]) {
      const c = clientOf({ url: server.url, username, password });
      const err = await refusal(c.query({ query: 'SELECT 1' }));
      expect(err).toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
      await c.close();
    }
    const res = await fetch(`${server.url}/?query=SELECT+1`);
    expect(res.status).toBe(403);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('516');
  });

  it('caps result size and execution time; a client may lower them, not raise them', async () => {
    expect(await refusal(analyst.query({ query: 'SELECT number FROM numbers(5000)' }))).toMatchObject({ code: '396', type: 'TOO_MANY_ROWS_OR_BYTES' });
    const raised = analyst.query({ query: 'SELECT number FROM numbers(5000)', clickhouse_settings: { max_result_rows: '100000' } });
    expect((await refusal(raised)).type).toBe('TOO_MANY_ROWS_OR_BYTES');
    const lowered = analyst.query({ query: 'SELECT number FROM numbers(50)', clickhouse_settings: { max_result_rows: '10' } });
    expect((await refusal(lowered)).type).toBe('TOO_MANY_ROWS_OR_BYTES');
    const overLimit = await fetch(`${server.url}/?user=analyst&password=${encodeURIComponent('s3cret:with-colon')}&max_result_rows=1`, { method: 'POST', body: 'SELECT number FROM numbers(3)' });
    expect(overLimit.status, 'a query past a limit is the query\'s fault').toBe(400);
    const slow = analyst.query({ query: 'SELECT count() FROM numbers(1e12)', clickhouse_settings: { max_execution_time: 1 } });
    expect(await refusal(slow)).toMatchObject({ code: '159', type: 'TIMEOUT_EXCEEDED' });
  });

  it('reads query parameters from a multipart body, as the client sends them with use_multipart_params', async () => {
    const multipart = clientOf({ url: server.url, username: 'analyst', password: 's3cret:with-colon', use_multipart_params: true });
    const rows = await (await multipart.query({ query: 'SELECT id FROM items WHERE id = {id:String}', query_params: { id: 'b' }, format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ id: 'b' }]);
    await multipart.close();
  });

  it('refuses a body it cannot decompress, naming the encoding', async () => {
    const headers = { 'X-ClickHouse-User': 'analyst', 'X-ClickHouse-Key': 's3cret:with-colon' };
    const garbled = await fetch(`${server.url}/`, { method: 'POST', headers: { ...headers, 'Content-Encoding': 'gzip' }, body: 'SELECT 1' });
    expect(garbled.status).toBe(400);
    expect(await garbled.text()).toMatch(/^Code: 36\. DB::Exception: Request body is not valid gzip/);
    const torn = await fetch(`${server.url}/`, { method: 'POST', headers: { ...headers, 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x\r\nbroken' });
    expect(torn.status).toBe(400);
    expect(await torn.text()).toMatch(/multipart\/form-data body could not be read/);
    const native = await fetch(`${server.url}/?compress=1`, { method: 'POST', headers, body: 'SELECT 1' });
    expect(native.status).toBe(501);
    expect(await native.text()).toMatch(/NOT_IMPLEMENTED/);
    const unknown = await fetch(`${server.url}/`, { method: 'POST', headers: { ...headers, 'Content-Encoding': 'lz4' }, body: 'SELECT 1' });
    expect(unknown.headers.get('x-clickhouse-exception-code')).toBe('89');
  });

  it("refuses every setting outside the allowlist with a 400 naming it: the issue's format_template_row file read returns no file content", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-analytics-secret-'));
    const secretFile = path.join(dir, 'decision-signing.key');
    const secret = 'KNOWN-SECRET-7f3a9c1e';
    await writeFile(secretFile, `${secret}\n`);
    const auth = `user=analyst&password=${encodeURIComponent('s3cret:with-colon')}`;
    const attack = await fetch(`${server.url}/?${auth}&default_format=Template&format_template_row=${encodeURIComponent(secretFile)}`, { method: 'POST', body: 'SELECT 1' });
    const text = await attack.text();
    expect(attack.status).toBe(400);
    expect(text).toMatch(/Setting 'format_template_row' is not allowed/);
    expect(text).not.toContain(secret);
    expect(JSON.stringify([...attack.headers])).not.toContain(secret);
    for (const name of ['format_template_resultset', 'format_schema', 'output_format_schema', 'input_format_avro_schema_registry_url', 'user_files_path', 'format_template_rows_between_delimiter', 'readonly', 'max_threads', 'allow_ddl']) {
      const res = await fetch(`${server.url}/?${auth}&${name}=${encodeURIComponent(name === 'readonly' ? '0' : secretFile)}`, { method: 'POST', body: 'SELECT 1' });
      const body = await res.text();
      expect(res.status, name).toBe(400);
      expect(body, name).toContain(`'${name}'`);
      expect(body, name).not.toContain(secret);
    }
    // An allowed output setting still works, and a path in its value is refused.
    const quoted = await analyst.query({ query: 'SELECT toUInt64(7) AS n', format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
    expect(await quoted.json()).toEqual([{ n: 7 }]);
    const pathValue = await fetch(`${server.url}/?${auth}&format_csv_delimiter=${encodeURIComponent(secretFile)}`, { method: 'POST', body: 'SELECT 1' });
    expect(pathValue.status).toBe(400);
    expect(await pathValue.text()).toContain("'format_csv_delimiter'");
  });

  it('cleans engine errors of the values they would quote from a table, keeping what the query itself says', async () => {
    await writer.command({ query: 'CREATE TABLE IF NOT EXISTS vault (v String) ENGINE = MergeTree ORDER BY v' });
    await writer.insert({ table: 'vault', format: 'JSONEachRow', values: [{ v: 'classified-value-4711' }] });
    const res = await fetch(`${server.url}/?user=analyst&password=${encodeURIComponent('s3cret:with-colon')}`, { method: 'POST', body: 'SELECT toInt32(v) FROM vault' });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).toMatch(/^Code: 6\. DB::Exception: Cannot parse string '…' as Int32.*\(CANNOT_PARSE_TEXT\)\n$/s);
    expect(text).not.toContain('classified');
    // A literal of the client's own query is still named.
    const own = await fetch(`${server.url}/?user=analyst&password=${encodeURIComponent('s3cret:with-colon')}`, { method: 'POST', body: "SELECT toInt32('not-a-number')" });
    expect(await own.text()).toContain("'not-a-number'");
  });

  it('reports the engine errors of a bad query with their status', async () => {
    expect(await refusal(analyst.query({ query: 'SELECT * FROM no_such_table' }))).toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    const res = await fetch(`${server.url}/?query=SELEC+1&user=analyst&password=${encodeURIComponent('s3cret:with-colon')}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/^Code: 62\. DB::Exception: Syntax error/);
  });
});

describe('query slots', () => {
  it('runs a fixed number at a time, queues a bounded number, refuses the rest like max_concurrent_queries', async () => {
    const slots = new Slots(2, 1);
    const a = await slots.take();
    const b = await slots.take();
    let thirdStarted = false;
    const third = slots.take().then((release) => ((thirdStarted = true), release));
    await expect(slots.take()).rejects.toMatchObject({ code: 202, type: 'TOO_MANY_SIMULTANEOUS_QUERIES' });
    expect(thirdStarted).toBe(false);
    a();
    a(); // releasing a slot twice frees it once
    const releaseThird = await third;
    expect(thirdStarted).toBe(true);
    releaseThird();
    await slots.take(); // the freed slot, at once
    let fifthStarted = false;
    const fifth = slots.take().then(() => (fifthStarted = true));
    await Promise.resolve();
    expect(fifthStarted).toBe(false); // both slots busy again: it waits
    b();
    await fifth;
    expect(fifthStarted).toBe(true);
  });
});
