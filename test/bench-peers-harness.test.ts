import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assemblePeers, runPair, withPeersTable, type PairSpec, type Side } from '../bench/peers/harness.js';

/** A side that answers the next of its figures and records when it ran, setup and teardown included. */
function side(name: string, figures: number[], calls: string[]): Side {
  return {
    name,
    setup: async () => void calls.push(`${name}:setup`),
    run: async (round) => {
      calls.push(`${name}:${round}`);
      return figures[round]!;
    },
    teardown: async () => void calls.push(`${name}:teardown`),
  };
}

const spec = (over: Partial<PairSpec>, calls: string[]): PairSpec => ({
  id: 'pair',
  title: 'Test pair',
  metric: 'things/s',
  higherIsBetter: true,
  goal: { ratio: 1, text: 'Weir ≥ 1.0× peer' },
  weir: side('weir', [50, 80, 120], calls),
  peer: side('peer', [100, 100, 100], calls),
  commands: ['npm run bench:peers -- pair'],
  ...over,
});

describe('peers harness', () => {
  it('alternates the sides and the side going first, sets up and tears down once each', async () => {
    const calls: string[] = [];
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-'));
    const result = await runPair(spec({ rounds: 4, weir: side('weir', [1, 2, 3, 4], calls), peer: side('peer', [1, 1, 1, 1], calls) }, calls), { resultsDir: dir });
    expect(calls).toEqual(['weir:setup', 'peer:setup', 'weir:0', 'peer:0', 'peer:1', 'weir:1', 'weir:2', 'peer:2', 'peer:3', 'weir:3', 'weir:teardown', 'peer:teardown']);
    expect(result.rounds.map((r) => r.first)).toEqual(['weir', 'peer', 'weir', 'peer']);
  });

  it('takes the median of the per-round ratios and judges the goal in the direction of the metric', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-'));
    const higher = await runPair(spec({ id: 'higher' }, []), { resultsDir: dir });
    expect(higher.ratios).toEqual([0.5, 0.8, 1.2]);
    expect(higher.medianRatio).toBe(0.8);
    expect(higher.goalMet).toBe(false);
    // A latency pair: Weir's p99 at most 1.5× the floor's.
    const lower = await runPair(spec({ id: 'lower', higherIsBetter: false, goal: { ratio: 1.5, text: 'Weir ≤ 1.5× floor' }, weir: side('weir', [14, 12, 30], []), peer: side('peer', [10, 10, 10], []) }, []), { resultsDir: dir });
    expect(lower.medianRatio).toBe(1.4);
    expect(lower.goalMet).toBe(true);
    const written = JSON.parse(await readFile(path.join(dir, 'lower.json'), 'utf8'));
    expect(written).toMatchObject({ id: 'lower', weirName: 'weir', peerName: 'peer', medianRatio: 1.4, goalMet: true, rounds: [{ weir: 14, peer: 10 }, { weir: 12, peer: 10 }, { weir: 30, peer: 10 }] });
    expect(written.machine.cores).toBe(os.cpus().length);
    expect(typeof written.machine.kdamondRunning).toBe('boolean');
  });

  it('tears both sides down when a round fails, and writes no result', async () => {
    const calls: string[] = [];
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-'));
    const broken: Side = { ...side('peer', [], calls), run: async () => Promise.reject(new Error('peer crashed')) };
    await expect(runPair(spec({ peer: broken }, calls), { resultsDir: dir })).rejects.toThrow('peer crashed');
    expect(calls.slice(-2)).toEqual(['weir:teardown', 'peer:teardown']);
    await expect(readFile(path.join(dir, 'pair.json'))).rejects.toThrow();
  });

  it('assembles one table in pair order, with each round, the goal and the failures', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'peers-'));
    await runPair(spec({ id: 'second', order: 2, title: 'Second pair' }, []), { resultsDir: dir });
    await runPair(spec({ id: 'first', order: 1, title: 'First pair', weir: side('weir', [200, 200, 200], []) }, []), { resultsDir: dir });
    await writeFile(path.join(dir, 'second.findings.md'), 'Findings: the store is the bottleneck.\n');
    const out = path.join(dir, 'peers.md');
    assemblePeers({ resultsDir: dir, out, failed: { third: 'exited with 1' } });
    const md = await readFile(out, 'utf8');
    const rows = md.split('\n').filter((l) => l.startsWith('| First pair') || l.startsWith('| Second pair'));
    expect(rows).toEqual([
      '| First pair | things/s | 200, 200, 200 | 100, 100, 100 | **2.00×** | Weir ≥ 1.0× peer | yes |',
      '| Second pair | things/s | 50, 80, 120 | 100, 100, 100 | **0.80×** | Weir ≥ 1.0× peer | **no** |',
    ]);
    expect(md).toContain('- third: exited with 1');
    // The findings file shows in its own pair's section, not in the other's.
    expect(md.split('## Second pair')[1]).toContain('Findings: the store is the bottleneck.');
    expect(md.split('## Second pair')[0]).not.toContain('Findings');
    expect(md).toContain('npm run bench:peers -- pair');
  });

  it("replaces README's table between its markers and leaves a text without them alone", () => {
    const start = '<!-- peers table: bench/peers/harness.ts writes it -->';
    const end = '<!-- end of peers table -->';
    const readme = `# Weir\n\n${start}\n| old | table |\n${end}\n\nmore\n`;
    expect(withPeersTable(readme, '| new |')).toBe(`# Weir\n\n${start}\n| new |\n${end}\n\nmore\n`);
    expect(withPeersTable('# Weir\n', '| new |')).toBe('# Weir\n');
  });
});
