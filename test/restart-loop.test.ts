import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kill, spawnFixture, type Child } from './fixtures/bus-crash-harness.js';
import { countersClient, waitFor } from './fixtures/counters-http.js';

/**
 * Issue 10: the embedded default killed with -9 under load and started again, 20 times, each
 * time with the pid its predecessor had (as in a container). Every start must open the log for
 * writing and the window store, and in the end every event ever acknowledged counts exactly once.
 */

const CYCLES = 20;
const BATCH_SIZE = 50;
const config = {
  flush_interval_seconds: 1,
  counters: [{ name: 'n', event_type: 'visit', aggregate: 'count', window: { amount: 24, unit: 'hours' } }],
};

describe('kill -9 / restart loop, same pid every start', () => {
  it(`keeps every acknowledged event across ${CYCLES} kills under load`, async () => {
    const runId = `loop${Date.now()}`;
    const org = `org_${runId}`;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-restart-loop-'));
    const env = { DATA_DIR: path.join(dir, 'data'), API_KEYS: `${org}:key`, LOG_LEVEL: 'warn' };
    const start = async (): Promise<{ child: Child; c: ReturnType<typeof countersClient> }> => {
      const child = spawnFixture('./same-pid-restart-child.ts', env);
      const url = (await child.line('ready', (l) => l.startsWith('READY '))).slice('READY '.length);
      return { child, c: countersClient(url, org, 'key') };
    };
    const sent: ReturnType<typeof makeBatch>[] = [];
    const acknowledged = new Set<number>();
    let nextEvent = 0;
    const makeBatch = () =>
      Array.from({ length: BATCH_SIZE }, () => ({
        event_id: `${runId}-${nextEvent++}`,
        entity_id: `ent-${nextEvent % 5}`,
        event_type: 'visit',
        occurred_at: new Date().toISOString(),
      }));

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const { child, c } = await start();
      try {
        if (cycle > 0) expect(child.lines.filter((l) => l.startsWith('LOCK ')), 'the predecessor left its locks').toHaveLength(2);
        if (cycle === 0) expect((await c.putConfig(config)).status).toBe(200);
        // Load: two senders; the kill comes once this start has acknowledged a few batches.
        let stop = false;
        let ackedHere = 0;
        const sender = async () => {
          while (!stop) {
            const batch = makeBatch();
            const b = sent.push(batch) - 1;
            const res = await c.postBatch(batch).catch(() => undefined);
            if (!res) return;
            expect(res.status, JSON.stringify(res.body)).toBe(202);
            acknowledged.add(b);
            ackedHere++;
          }
        };
        const senders = [sender(), sender()];
        await waitFor(async () => ackedHere, (n) => n >= 4, 60_000);
        await kill(child, 'SIGKILL');
        stop = true;
        await Promise.all(senders);
      } finally {
        await kill(child, 'SIGKILL');
      }
    }

    const { child, c } = await start();
    try {
      // Batches never answered are sent again; acknowledged ones must all be there already.
      for (let b = 0; b < sent.length; b++) if (!acknowledged.has(b)) expect((await c.postBatch(sent[b]!)).status).toBe(202);
      const expected = new Map<string, number>();
      for (const e of sent.flat()) expected.set(e.entity_id, (expected.get(e.entity_id) ?? 0) + 1);
      const live = async () => Promise.all([...expected.keys()].map(async (id) => [id, (await c.realtime(id)).body.data?.counters?.n] as const));
      const values = await waitFor(live, (all) => all.every(([id, n]) => n === expected.get(id)), 120_000);
      expect(Object.fromEntries(values)).toEqual(Object.fromEntries(expected));
      // Resending everything acknowledged finds only duplicates.
      const again = await c.postBatch(sent[[...acknowledged][0]!]!);
      expect(again.body.data).toMatchObject({ accepted: 0, duplicates: BATCH_SIZE });
    } finally {
      await kill(child, 'SIGKILL');
    }
  }, 600_000);
});
