/**
 * Weir against the system a user would pick instead, as a ratio measured in one run on one machine.
 * Absolute figures swing tenfold on these shared 2-core machines (bench/RESULTS.md, "What the tail
 * is made of on this machine"), so each pair runs its two sides alternately, round after round,
 * the side that goes first alternating too, and reports the ratio of each round and their median.
 *
 * A pair is one script `bench/peers/<id>.ts` that builds a `PairSpec` and awaits `runPair(spec)`;
 * its helpers and the peer's own project (pom.xml, package.json) live in a folder beside it,
 * `bench/peers/<something>/`, so that every `bench/peers/*.ts` except this file and run.ts is a pair.
 * `runPair` writes bench/results/peers/<id>.json; `assemblePeers()` (run by bench/peers/run.ts, or
 * `npx tsx bench/peers/harness.ts`) turns every such file into bench/results/peers.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { damonState, kdamondRunning } from '../damon.js';

export interface Side {
  name: string;
  /** One measurement: the figure of this round, in the pair's metric. */
  run(round: number): Promise<number>;
  /** Once, before the first round of either side (builds, installs, servers, pre-filled topics). */
  setup?(): Promise<void>;
  /** Once, after the last round or on failure. */
  teardown?(): Promise<void>;
}

/** A figure measured beside the pair, not part of the ratio (e.g. a store's own ceiling). */
export interface Beside {
  name: string;
  value: number;
  unit: string;
  text?: string;
}

export interface PairSpec {
  /** File name: bench/results/peers/<id>.json; also the pair script's name, bench/peers/<id>.ts. */
  id: string;
  /** e.g. 'Counters: Weir on Kafka + Redis vs Kafka Streams 3.9.2' */
  title: string;
  /** e.g. 'settled events/s' or 'server-side p99 ms' */
  metric: string;
  higherIsBetter: boolean;
  /** ratio = weir / peer, met when the median ratio is at least it (higherIsBetter) or at most it; text e.g. 'Weir ≥ 1.0× Kafka Streams'. */
  goal: { ratio: number; text: string };
  weir: Side;
  peer: Side;
  /** Default 3, alternating weir/peer, the starting side alternating per round. */
  rounds?: number;
  /** Exact commands a reader can run. */
  commands: string[];
  /** What each side guarantees. */
  guarantees?: string[];
  /** Read after the rounds, so a side may push what it measured (causes, checks, install times). */
  notes?: string[];
  /** Read after the rounds, like notes: figures reported beside the pair. */
  beside?: Beside[];
  /** Position in peers.md's table (the pair's number in the issue); pairs without one come last, by id. */
  order?: number;
}

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  /** os.loadavg() when taken: 1, 5 and 15 minutes. */
  loadavg: number[];
  kdamondRunning: boolean;
  kdamond: string;
  node: string;
  java: string | null;
  gitCommit: string;
  /** Uncommitted changes in the worktree when measured. */
  gitDirty: boolean;
  takenAt: string;
}

export interface Round {
  weir: number;
  peer: number;
  /** Which side ran first in this round. */
  first: 'weir' | 'peer';
  /** 1-minute load average just before each side's run. */
  load1: { weir: number; peer: number };
}

export interface PairResult {
  id: string;
  title: string;
  metric: string;
  higherIsBetter: boolean;
  goal: { ratio: number; text: string };
  weirName: string;
  peerName: string;
  commands: string[];
  guarantees: string[];
  notes: string[];
  beside: Beside[];
  order?: number;
  rounds: Round[];
  /** weir / peer per round. */
  ratios: number[];
  medianRatio: number;
  goalMet: boolean;
  machine: MachineInfo;
  /** The machine again after the last round (its load average is what changes). */
  machineAtEnd: MachineInfo;
  startedAt: string;
  finishedAt: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const resultsDir = path.join(repoRoot, 'bench/results/peers');
const peersMd = path.join(repoRoot, 'bench/results/peers.md');

const tryRun = (cmd: string, args: string[]): string | null => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], cwd: repoRoot }).trim();
  } catch {
    return null;
  }
};

/** `java -version` writes to stderr: its first line, or null without a java. */
function javaVersion(): string | null {
  const out = tryRun('sh', ['-c', 'command -v java >/dev/null && java -version 2>&1']);
  return out ? (out.split('\n')[0]?.trim() ?? null) : null;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    kdamondRunning: kdamondRunning(),
    kdamond: damonState(),
    node: process.version,
    java: javaVersion(),
    gitCommit: tryRun('git', ['rev-parse', '--short=12', 'HEAD']) ?? 'unknown',
    gitDirty: (tryRun('git', ['status', '--porcelain', '--untracked-files=no']) ?? '') !== '',
    takenAt: new Date().toISOString(),
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A figure as a reader wants it: three significant digits, thousands separated. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

const fmtRatio = (r: number): string => `${r.toFixed(2)}×`;

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
}

/**
 * Runs the pair: both setups, then `rounds` rounds, each running both sides one after the other
 * (weir first in round 0, the peer first in round 1, …), then both teardowns. Writes
 * bench/results/peers/<id>.json (or into `options.resultsDir`) and answers what it wrote.
 */
export async function runPair(spec: PairSpec, options: { resultsDir?: string } = {}): Promise<PairResult> {
  const rounds = spec.rounds ?? 3;
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const log = (msg: string) => console.log(`[${spec.id}] ${msg}`);
  log(`${spec.title}: ${rounds} rounds; ${machine.cores} cores, load ${machine.loadavg.join(' ')}; ${machine.kdamond}`);
  const out: Round[] = [];
  const torn: Side[] = [];
  const teardown = async () => {
    for (const side of [spec.weir, spec.peer]) {
      if (torn.includes(side)) continue;
      torn.push(side);
      await side.teardown?.().catch((err: unknown) => console.error(`[${spec.id}] ${side.name} teardown failed:`, err));
    }
  };
  const onSignal = () => void teardown().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const side of [spec.weir, spec.peer]) {
      const t0 = performance.now();
      await side.setup?.();
      log(`${side.name} set up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    for (let round = 0; round < rounds; round++) {
      const first = round % 2 === 0 ? 'weir' : 'peer';
      const order = first === 'weir' ? (['weir', 'peer'] as const) : (['peer', 'weir'] as const);
      const figure: Partial<Record<'weir' | 'peer', number>> = {};
      const load1: Partial<Record<'weir' | 'peer', number>> = {};
      for (const which of order) {
        load1[which] = Math.round(os.loadavg()[0]! * 100) / 100;
        const value = await spec[which].run(round);
        if (!Number.isFinite(value)) throw new Error(`${spec[which].name} answered ${value} in round ${round + 1}`);
        figure[which] = value;
        log(`round ${round + 1}/${rounds} ${spec[which].name}: ${fmt(value)} ${spec.metric} (load ${load1[which]})`);
      }
      out.push({ weir: figure.weir!, peer: figure.peer!, first, load1: { weir: load1.weir!, peer: load1.peer! } });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await teardown();
  }
  const ratios = out.map((r) => r.weir / r.peer);
  const medianRatio = median(ratios);
  const result: PairResult = {
    id: spec.id,
    title: spec.title,
    metric: spec.metric,
    higherIsBetter: spec.higherIsBetter,
    goal: spec.goal,
    weirName: spec.weir.name,
    peerName: spec.peer.name,
    commands: spec.commands,
    guarantees: spec.guarantees ?? [],
    notes: spec.notes ?? [],
    beside: spec.beside ?? [],
    ...(spec.order === undefined ? {} : { order: spec.order }),
    rounds: out,
    ratios,
    medianRatio,
    goalMet: spec.higherIsBetter ? medianRatio >= spec.goal.ratio : medianRatio <= spec.goal.ratio,
    machine,
    machineAtEnd: machineInfo(),
    startedAt,
    finishedAt: new Date().toISOString(),
  };
  const file = path.join(options.resultsDir ?? resultsDir, `${spec.id}.json`);
  writeJson(file, result);
  log(`median ratio ${fmtRatio(medianRatio)} (goal ${spec.goal.text}: ${result.goalMet ? 'met' : 'not met'}); wrote ${path.relative(repoRoot, file)}`);
  return result;
}

/** Every pair result on disk, in table order. */
export function readPairResults(dir = resultsDir): PairResult[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const results = files.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as PairResult);
  return results.sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity) || a.id.localeCompare(b.id));
}

const machineLine = (m: MachineInfo): string =>
  `${m.cores} × ${m.cpuModel}, ${m.memoryGiB} GiB; load ${m.loadavg.join(' / ')} (1/5/15 min); ${m.kdamond}; node ${m.node}; ${m.java ?? 'no java'}; commit ${m.gitCommit}${m.gitDirty ? ' (with uncommitted changes)' : ''}`;

/** The summary table of peers.md (also what README shows). */
export function peersTable(results: PairResult[]): string {
  const rows = results.map((r) => {
    const per = (k: 'weir' | 'peer') => r.rounds.map((x) => fmt(x[k])).join(', ');
    return `| ${r.title} | ${r.metric} | ${per('weir')} | ${per('peer')} | **${fmtRatio(r.medianRatio)}** | ${r.goal.text} | ${r.goalMet ? 'yes' : '**no**'} |`;
  });
  return ['| Pair | Figure | Weir, per round | Peer, per round | Median ratio (Weir / peer) | Goal | Met? |', '|---|---|---:|---:|---:|---|---|', ...rows].join('\n');
}

/**
 * What a person found reading a pair's run (the measured cause of a missed goal, the next design
 * step): bench/results/peers/<id>.findings.md, kept beside the result and shown in its section.
 */
function findingsOf(dir: string, id: string): string | undefined {
  try {
    return readFileSync(path.join(dir, `${id}.findings.md`), 'utf8').trim();
  } catch {
    return undefined;
  }
}

function pairSection(r: PairResult, findings: string | undefined): string {
  const lines = [`## ${r.title}`, ''];
  lines.push(`Weir side: ${r.weirName}. Peer: ${r.peerName}. Figure: ${r.metric} (${r.higherIsBetter ? 'higher' : 'lower'} is better). Measured ${r.startedAt} to ${r.finishedAt}.`, '');
  lines.push('| Round | First | Weir | Peer | Ratio | Load before Weir / peer |', '|---:|---|---:|---:|---:|---|');
  r.rounds.forEach((x, i) => lines.push(`| ${i + 1} | ${x.first === 'weir' ? 'Weir' : 'peer'} | ${fmt(x.weir)} | ${fmt(x.peer)} | ${fmtRatio(r.ratios[i]!)} | ${x.load1.weir} / ${x.load1.peer} |`));
  lines.push('', `Median ratio **${fmtRatio(r.medianRatio)}**; goal ${r.goal.text}: ${r.goalMet ? 'met' : '**not met**'}.`);
  if (r.beside.length > 0) {
    lines.push('', 'Beside the pair:', '');
    for (const b of r.beside) lines.push(`- ${b.name}: ${fmt(b.value)} ${b.unit}${b.text ? ` (${b.text})` : ''}`);
  }
  if (findings) lines.push('', findings);
  if (r.guarantees.length > 0) lines.push('', 'What each side guarantees:', '', ...r.guarantees.map((g) => `- ${g}`));
  if (r.notes.length > 0) lines.push('', 'Notes:', '', ...r.notes.map((n) => `- ${n}`));
  lines.push('', `Machine at the start: ${machineLine(r.machine)}.`, '', `Load at the end: ${r.machineAtEnd.loadavg.join(' / ')}.`);
  lines.push('', 'Commands:', '', '```sh', ...r.commands, '```');
  return lines.join('\n');
}

/**
 * bench/results/peers/*.json -> bench/results/peers.md: one table (each side per round, median
 * ratio, goal, met?), then per pair its rounds, guarantees, notes, machine and commands.
 * `failed` names pairs whose script failed in this invocation (their older result, if any, stays
 * in the table, dated in its section). `resultsDir` and `out` default to the repository's; the table
 * also replaces the one between README.md's peers markers (`readme`, by default when `out` is).
 */
export function assemblePeers(options: { failed?: Record<string, string>; resultsDir?: string; out?: string; readme?: string | false } = {}): void {
  const results = readPairResults(options.resultsDir);
  const parts = [
    '# Weir against its peers',
    '',
    'Each pair ran its two sides alternately on the same machine in one run, the side going first alternating per round; the ratio is Weir / peer. Re-run with `npm run bench:peers` (all pairs) or `npm run bench:peers -- <id>` (one), each writing bench/results/peers/<id>.json, from which this page is assembled.',
    '',
    peersTable(results),
  ];
  const failures = Object.entries(options.failed ?? {});
  if (failures.length > 0) parts.push('', 'Pairs that failed in the last invocation (the table keeps their previous result, if any, dated below):', '', ...failures.map(([id, why]) => `- ${id}: ${why}`));
  for (const r of results) parts.push('', pairSection(r, findingsOf(options.resultsDir ?? resultsDir, r.id)));
  const out = options.out ?? peersMd;
  writeFileSync(out, parts.join('\n') + '\n');
  console.log(`${path.relative(repoRoot, out)}: ${results.length} pairs`);
  const readme = options.readme ?? (options.out === undefined ? path.join(repoRoot, 'README.md') : false);
  if (readme) writeFileSync(readme, withPeersTable(readFileSync(readme, 'utf8'), peersTable(results)));
}

const README_START = '<!-- peers table: bench/peers/harness.ts writes it -->';
const README_END = '<!-- end of peers table -->';

/** `text` with the part between the peers markers replaced by `table`; unchanged without the markers. */
export function withPeersTable(text: string, table: string): string {
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) return text;
  return `${text.slice(0, start + README_START.length)}\n${table}\n${text.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) assemblePeers();
