import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateLists } from '../infra/sanctions/update.js';
import { SOURCES } from '../infra/sanctions/sources/index.js';
import type { ListSource } from '../infra/sanctions/sources/types.js';
import { FIXTURE_LISTS_DIR } from './fixtures/sanctions/paths.js';

/** `npm run lists:update` against a local publisher: files are checked before they replace the old ones. */
describe('list update', () => {
  let server: Server;
  let base: string;
  const files: Record<string, string> = {
    '/good.csv': readFileSync(path.join(FIXTURE_LISTS_DIR, 'ng', 'sanctions.csv'), 'utf8'),
    '/bad.csv': 'id,name,type,aliases,dates_of_birth,nationalities,address,country,programs,remarks\nX,Someone,spaceship,,,,,,,\n',
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = files[req.url ?? ''];
      res.writeHead(body ? 200 : 404).end(body ?? 'not found');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ng = SOURCES.find((s) => s.id === 'ng-sanctions')!;
  const from = (file: string): ListSource => ({ ...ng, downloads: [{ file: 'sanctions.csv', url: `${base}${file}` }] });

  it('puts a downloaded file in place only when it parses, and keeps the old file otherwise', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-update-'));
    const ok = await updateLists(dir, { sources: [from('/good.csv')] });
    expect(ok).toEqual([{ list: 'ng-sanctions', status: 'updated', detail: '2 entities in 1 file(s)' }]);
    expect(readFileSync(path.join(dir, 'ng', 'sanctions.csv'), 'utf8')).toBe(files['/good.csv']);

    const bad = await updateLists(dir, { sources: [from('/bad.csv')] });
    expect(bad[0]).toMatchObject({ status: 'failed', detail: expect.stringContaining('sanctions.csv:2: type must be one of') });
    expect(readFileSync(path.join(dir, 'ng', 'sanctions.csv'), 'utf8')).toBe(files['/good.csv']);

    const missing = await updateLists(dir, { sources: [from('/gone.csv')] });
    expect(missing[0]).toMatchObject({ status: 'failed', detail: expect.stringContaining('answered 404') });
  });

  it('fails a list whose publisher cannot be reached without touching its files, and says which lists are kept by hand', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-update-'));
    mkdirSync(path.join(dir, 'ng'));
    writeFileSync(path.join(dir, 'ng', 'sanctions.csv'), 'old');
    const unreachable: ListSource = { ...ng, downloads: [{ file: 'sanctions.csv', url: 'http://127.0.0.1:9/none.csv' }] };
    const r = await updateLists(dir, { sources: [unreachable, SOURCES.find((s) => s.id === 'ng-pep')!] });
    expect(r[0]).toMatchObject({ list: 'ng-sanctions', status: 'failed' });
    expect(r[1]).toMatchObject({ list: 'ng-pep', status: 'manual' });
    expect(readFileSync(path.join(dir, 'ng', 'sanctions.csv'), 'utf8')).toBe('old');
    expect(existsSync(path.join(dir, 'ng', 'pep.csv'))).toBe(false);
  });
});
