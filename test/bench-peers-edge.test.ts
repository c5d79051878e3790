import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILM_SECONDS, FPS, remotionProps, SCENES, weirScript } from '../bench/peers/edge/film.js';
import { send, startTimedServer } from '../bench/peers/edge/latency.js';
import { transaction } from '../bench/rules-workload.js';
import { compile } from '../domain/video/compile.js';
import { createEmbeddedBus } from '../infra/bus/embedded/index.js';
import { createLogger } from '../infra/logger.js';
import { TRANSACTIONS_TOPIC } from '../pipelines/rules/transactions-topic.js';

describe('peers: the transactions floor and the in-server timer', () => {
  it('times each series of requests inside the server, forgets what it answered, and the floor appends every request to the log', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-floor-'));
    const server = await startTimedServer(new URL('../bench/peers/edge/floor-server.ts', import.meta.url).href, { DATA_DIR: dir, LOG_LEVEL: 'warn' });
    try {
      const post = (series: string, i: number) => send(server.url, { method: 'POST', path: '/transaction/org1', headers: { 'x-peers-series': series }, body: JSON.stringify(transaction(i)) });
      for (let i = 0; i < 12; i++) expect((await post('a', i)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await post('b', i)).status).toBe(200);
      expect((await send(server.url, { method: 'GET', path: '/nothing', headers: {} })).status).toBe(404);

      const a = await server.times('a');
      expect(a).toHaveLength(12);
      expect(a.every((ms) => ms > 0)).toBe(true);
      expect(a).toEqual([...a].sort((x, y) => x - y));
      // The first call answered every series and forgot them all.
      expect(await server.times('b')).toEqual([]);
      expect((await post('b', 99)).status).toBe(200);
      expect(await server.times('b')).toHaveLength(1);
    } finally {
      await server.stop();
    }
    const bus = await createEmbeddedBus({ dir: path.join(dir, 'log'), log: createLogger('silent') });
    try {
      const lag = await bus.lag('nobody', TRANSACTIONS_TOPIC);
      expect(lag).toHaveLength(6);
      expect(lag.reduce((n, p) => n + p.lag, 0)).toBe(18);
    } finally {
      await bus.close();
    }
  });
});

describe('peers: the rendering pairs\' film', () => {
  it('compiles as a Weir script to 30 s at 1920x1080 with a picture, a clip, an audio bed and transitions', () => {
    const result = compile(weirScript({ picture: 'pic', clip: 'clip', bed: 'bed' }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const g = result.renderGraph;
    expect(g.film).toMatchObject({ width: 1920, height: 1080, fps: FPS });
    expect(g.film.durationSeconds).toBeCloseTo(FILM_SECONDS, 6);
    expect(FILM_SECONDS).toBeCloseTo(30, 6);
    expect(g.scenes).toHaveLength(SCENES.length);
    expect(g.scenes.filter((s) => s.layers.some((l) => l.kind === 'video'))).toHaveLength(2);
    expect(g.scenes.filter((s) => s.transition !== null)).toHaveLength(SCENES.length - 1);
    expect(g.audio).toHaveLength(1);
    expect(result.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('gives Remotion the same cuts in whole frames', () => {
    const p = remotionProps({ picture: '/m/picture.png', clip: '/m/clip.mp4', bed: '/m/bed.wav' });
    expect(p.durationInFrames).toBe(900);
    expect(p.scenes.reduce((n, s) => n + s.frames, 0) - p.transitionFrames * (p.scenes.length - 1)).toBe(p.durationInFrames);
    expect(p.scenes.every((s) => s.frames === s.seconds * FPS)).toBe(true);
    expect(p.media).toEqual({ picture: 'picture.png', clip: 'clip.mp4', bed: 'bed.wav' });
  });

  it('gives both sides of a rule pair the same transactions', () => {
    const { transaction_id: id1, ...one } = transaction(7, 'x');
    const { transaction_id: id2, ...two } = transaction(7, 'y');
    expect(one).toEqual(two);
    expect(id1).not.toBe(id2);
  });
});
