import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SanctionEntity } from '../domain/screening/entity.js';
import type { Snapshot } from '../domain/screening/snapshot.js';
import { loadSnapshot } from '../infra/sanctions/loader.js';
import { SnapshotStore } from '../infra/sanctions/store.js';
import { SOURCES } from '../infra/sanctions/sources/index.js';
import { ListParseError } from '../infra/sanctions/sources/types.js';
import { FIXTURE_LISTS_DIR, MALFORMED_LISTS_DIR, REAL_LISTS_DIR } from './fixtures/sanctions/paths.js';

const only = (...ids: string[]) => SOURCES.filter((s) => ids.includes(s.id));
const countTypes = (entities: SanctionEntity[]) => entities.reduce<Record<string, number>>((acc, e) => ({ ...acc, [e.type]: (acc[e.type] ?? 0) + 1 }), {});

describe.skipIf(!REAL_LISTS_DIR)('parsers on the real list files', () => {
  let s: Snapshot;
  const entity = (id: string) => s.entities[s.byId.get(id)!]!;

  beforeAll(async () => {
    s = await loadSnapshot(REAL_LISTS_DIR!);
  });

  it('reports counts per list', () => {
    expect(Object.fromEntries(s.lists.map((l) => [l.list, l.entities]))).toEqual({
      'ofac-sdn': 14965,
      'ofac-cons': 442,
      un: 1003,
      uk: 4686,
      'us-csl': 14160,
      // 665 rows; one denial order lists a party at several addresses.
      'us-dpl': expect.any(Number),
    });
    const byList = (list: string) => s.entities.filter((e) => e.id.startsWith(`${list}-`));
    expect(countTypes(byList('ofac-sdn'))).toEqual({ person: 6854, organization: 6884, vessel: 851, aircraft: 376 });
    expect(countTypes(byList('un'))).toEqual({ person: 730, organization: 273 });
    expect(countTypes(byList('uk'))).toEqual({ person: 3662, organization: 1009, vessel: 15 });
    expect(s.version).toMatch(/^\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/);
  });

  it('OFAC SDN: primary, aliases, addresses, remarks and facts joined on ent_num', () => {
    const bnc = entity('ofac-sdn-306');
    expect(bnc).toMatchObject({ source: 'OFAC-SDN', listType: 'sanctions', type: 'organization', programs: ['CUBA'] });
    expect(bnc.names[0]).toEqual({ name: 'BANCO NACIONAL DE CUBA', kind: 'primary' });
    expect(bnc.names).toContainEqual({ name: 'NATIONAL BANK OF CUBA', kind: 'aka' });
    expect(bnc.addresses).toContainEqual({ line: 'Zweierstrasse 35, Zurich CH-8022', country: 'Switzerland' });

    const marija = entity('ofac-sdn-7739');
    expect(marija).toMatchObject({ type: 'person', datesOfBirth: ['1965'], programs: ['BALKANS'], remarks: 'DOB 1965; daughter of Slobodan Milosevic.' });

    const nasrallah = entity('ofac-sdn-2686');
    expect(nasrallah.names.map((n) => n.name)).toContain('NASRALLAH, Hasan Abd-al-Karim');
    expect(nasrallah.addresses).toContainEqual({ line: '', country: 'Lebanon' });

    const vessel = entity('ofac-sdn-4243');
    expect(vessel).toMatchObject({ type: 'vessel', programs: ['CUBA'] });
    expect(vessel.names).toContainEqual({ name: 'ANA I', kind: 'fka' });

    // Weak a.k.a.s are the remarks' quoted ones (issue 33); alt.csv's are ordinary.
    const kony = entity('ofac-sdn-19930');
    expect(kony.names).toContainEqual({ name: 'MOHAMMED, Ali', kind: 'aka', weak: true });
    expect(kony.names).toContainEqual({ name: 'LALOBO, Ali', kind: 'aka' });
  });

  it('OFAC SDN: a remark cut at 1,000 characters continues from sdn_comments.csv', () => {
    const e = entity('ofac-sdn-17018');
    expect(e.remarks.length).toBeGreaterThan(1000);
    expect(e.remarks).toContain('Effective Date (EO 14024 Directive 2): 26 Mar 2022');
  });

  it('OFAC Consolidated (non-SDN): several programs, nationality as a country code', () => {
    expect(entity('ofac-cons-9647')).toMatchObject({ type: 'person', datesOfBirth: ['1945'], nationalities: ['PS'], programs: ['SDGT', 'NS-PLC'] });
  });

  it('UN: names in UN order, aliases, original script, dates and nationality', () => {
    const e = entity('un-KPi.013');
    expect(e.names.map((n) => n.name)).toEqual(['CHOE CHUN-SIK', 'Choe Chun Sik', 'Ch’oe Ch’un Sik']);
    expect(e).toMatchObject({ source: 'UN', type: 'person', datesOfBirth: ['1954-10-12'], nationalities: ['KP'], programs: ['DPRK'] });
    expect(entity('un-QDi.322').nationalities).toContain('NG');
    const saddam = entity('un-IQi.001');
    expect(saddam.names).toContainEqual({ name: 'صدام حسين التكريتي', kind: 'original_script' });
  });

  it('UK: rows grouped by Group ID with the primary name first', () => {
    expect(entity('uk-12510')).toMatchObject({
      source: 'UK-OFSI',
      type: 'person',
      names: [{ name: 'Fayssal ABBAS', kind: 'primary' }, { name: 'Faysal ABBAS', kind: 'aka' }],
      datesOfBirth: ['1955'],
      nationalities: ['SY'],
      programs: ['Syria'],
    });
  });

  it('US CSL: list code from the source column, aliases and dates split on "; "', () => {
    expect(entity('us-csl-24904')).toMatchObject({
      source: 'US-CSL-SDN',
      listType: 'sanctions',
      type: 'person',
      names: [{ name: "'ABBAS, Yasir", kind: 'primary' }, { name: "'ABBAS, Yasir 'Aziz", kind: 'aka' }],
      datesOfBirth: ['1978-08-22'],
      nationalities: ['SY'],
    });
    const el = entity('us-csl-4398d33e9e93c7477af39f1e0bfffc13ddd47bcc');
    expect(el).toMatchObject({ source: 'US-CSL-EL', listType: 'export_control', type: 'organization' });
    expect(el.addresses).toContainEqual({ line: '19 Luysi Chalovskoy St., Borisov, 222512', country: 'BY' });
  });

  it('extracts relationships from real remarks, resolving listed targets', () => {
    const hizballah = s.byId.get('ofac-sdn-4697')!;
    const inbound = s.graph.inbound(hizballah);
    expect(inbound.length).toBeGreaterThan(50);
    expect(inbound.map((e) => s.entities[e.from]!.id)).toContain('ofac-sdn-2686');
    const marija = s.graph.outbound(s.byId.get('ofac-sdn-7739')!);
    expect(marija).toContainEqual(expect.objectContaining({ type: 'family_member', confidence: 'stated', detail: 'daughter of Slobodan Milosevic' }));
    // Typed relationships of the enhanced XML, resolved by entity id.
    const bm = s.graph.outbound(s.byId.get('ofac-cons-17017')!);
    expect(bm).toContainEqual(expect.objectContaining({ type: 'owned_by', confidence: 'stated', to: s.byId.get('ofac-cons-17013') }));
    const zahhar = s.graph.outbound(s.byId.get('ofac-cons-9647')!);
    expect(zahhar).toContainEqual(expect.objectContaining({ type: 'agent_of', detail: 'Acting for or on behalf of: HAMAS', to: s.byId.get('ofac-sdn-4695') }));
    expect(s.lists.find((l) => l.list === 'us-csl')!.sources).toContain('US-CSL-EL');
    // Regulatory boilerplate is no relationship.
    expect(s.graph.edges.some((e) => /Financial Institutions/.test(e.targetName))).toBe(false);
  });
});

describe('parsers on fixtures written from the documented formats', () => {
  let s: Snapshot;
  beforeAll(async () => {
    s = await loadSnapshot(FIXTURE_LISTS_DIR, { sources: only('eu', 'ng-sanctions', 'ng-pep') });
  });

  it('EU FSF CSV 1.1: one entity per Entity_LogicalId from alias, birth date, citizenship and address rows', () => {
    const e = s.entities[s.byId.get('eu-900001')!]!;
    expect(e).toMatchObject({ source: 'EU-FSF', type: 'person', datesOfBirth: ['1984-07-14'], nationalities: ['RU'], programs: ['RUS'] });
    expect(e.names.map((n) => n.name)).toEqual(['Anna Viktorovna EXAMPLEVA', 'Анна Викторовна ЭКЗАМПЛЕВА']);
    expect(e.addresses).toEqual([{ line: 'Tverskaya 1, Moscow, 125009', country: 'RUSSIAN FEDERATION' }]);
    expect(s.entities[s.byId.get('eu-900002')!]!).toMatchObject({ type: 'organization', names: [{ name: 'Exampleton Shipping Joint Stock Company' }, { name: 'Exampleton Shipping JSC' }] });
  });

  it('Nigeria (Weir CSV): sanctions list and PEP list', () => {
    expect(s.entities[s.byId.get('ng-nsc-NSC-0001')!]!).toMatchObject({
      source: 'NG-NSC',
      listType: 'sanctions',
      datesOfBirth: ['1975-03-02', '1976'],
      nationalities: ['NG'],
      names: [{ name: 'Musa Example Bakori' }, { name: 'Musa Bakori' }, { name: 'Abu Example' }],
    });
    expect(s.entities[s.byId.get('ng-pep-PEP-0001')!]!).toMatchObject({ source: 'NG-PEP', listType: 'pep' });
    expect(s.lists.map((l) => [l.list, l.entities])).toEqual([['eu', 2], ['ng-sanctions', 2], ['ng-pep', 1]]);
  });
});

describe('malformed files', () => {
  it('names the file and the line', async () => {
    const err = await loadSnapshot(MALFORMED_LISTS_DIR, { sources: only('ofac-sdn') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListParseError);
    expect((err as ListParseError).message).toBe('ofac/sdn.csv:3: ent_num must be a number, got "ABC"');
  });

  it('reports a CSV syntax error with its line', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-lists-'));
    cpSync(path.join(FIXTURE_LISTS_DIR, 'ng'), path.join(dir, 'ng'), { recursive: true });
    writeFileSync(path.join(dir, 'ng', 'pep.csv'), 'id,name,type,aliases,dates_of_birth,nationalities,address,country,programs,remarks\nP1,"Open quote,person,,,,,,,\n');
    const err = await loadSnapshot(dir, { sources: only('ng-pep') }).catch((e: unknown) => e);
    expect((err as ListParseError).file).toBe('ng/pep.csv');
    expect((err as ListParseError).line).toBe(2);
  });

  it('keeps the previous snapshot in service when a reload meets a malformed file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'weir-lists-'));
    cpSync(path.join(FIXTURE_LISTS_DIR, 'ng'), path.join(dir, 'ng'), { recursive: true });
    const store = new SnapshotStore(dir, pino({ level: 'silent' }), { sources: only('ng-sanctions', 'ng-pep') });
    expect(await store.reload()).toBe(true);
    const before = store.current.status === 'ready' ? store.current.snapshot : null;
    expect(before?.entities).toHaveLength(3);
    writeFileSync(path.join(dir, 'ng', 'sanctions.csv'), 'id,name,type,aliases,dates_of_birth,nationalities,address,country,programs,remarks\nX1,Someone,spaceship,,,,,,,\n');
    expect(await store.reload()).toBe(false);
    expect(store.lastError).toBe('ng/sanctions.csv:2: type must be one of person, organization, vessel, aircraft, got "spaceship"');
    expect(store.current).toEqual({ status: 'ready', snapshot: before });
  });

  it('refuses a list whose parser is not the registered one (parsers run in a worker by list id)', async () => {
    const [ngPep] = only('ng-pep');
    const err = await loadSnapshot(FIXTURE_LISTS_DIR, { sources: [{ ...ngPep!, parse: () => [] }] }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('list ng-pep is not the one registered in sources/index.ts: only registered lists can be loaded');
  });

  it('starts with an empty snapshot named "empty" when no list files exist', async () => {
    const s = await loadSnapshot(mkdtempSync(path.join(os.tmpdir(), 'weir-lists-')));
    expect(s.version).toBe('empty');
    expect(s.entities).toHaveLength(0);
  });
});
