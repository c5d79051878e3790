import type { CheckRequest } from '../../schemas/http/risk.js';
import { entropy } from './email.js';
import type { Signal } from './signal.js';

/**
 * Bot and emulator detection from the raw mouse and keystroke events (`behavioral`) and the
 * aggregated signals (`behavior`). Humans move in curves at changing speed and type with uneven
 * gaps; scripts draw straight lines at constant speed and type on a timer; emulators replay events
 * at perfectly regular intervals.
 */

type Raw = NonNullable<CheckRequest['behavioral']>;
type Aggregated = NonNullable<CheckRequest['behavior']>;

/** Below these counts a pattern says nothing. */
const MIN_MOVES = 10;
const MIN_INTERVALS = 8;

export interface BehaviorFacts {
  /** 'human', 'bot', 'emulator' or 'unknown' (no behavioral data). */
  biometrics: 'human' | 'bot' | 'emulator' | 'unknown';
  /** 0..1: 1 when event intervals are perfectly regular. */
  stability: number;
  /** 0..1: spread of mouse directions (0 one direction, 1 every direction alike). */
  entropy: number;
  botConfidence: number;
  /** Features compared with the user's baseline; absent when the request did not carry them. */
  features: SessionFeatures;
}

export interface SessionFeatures {
  /** Mean pointer speed, px per ms. */
  mouseSpeed?: number;
  /** Mean gap between keystrokes, ms. */
  keyInterval?: number;
  /** Session length on the page, ms. */
  sessionMs?: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Coefficient of variation: spread relative to the mean (0 for identical values). */
export function variation(xs: number[]): number {
  if (xs.length < 2) return Number.NaN;
  const m = mean(xs);
  if (m === 0) return 0;
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) / Math.abs(m);
}

const gaps = (ts: number[]) => ts.slice(1).map((t, i) => t - ts[i]!);

interface MouseFacts {
  straight: boolean;
  constantSpeed: boolean;
  speed?: number;
  intervals: number[];
  directionEntropy: number;
}

function mouseFacts(events: Raw['mouse']): MouseFacts | null {
  const moves = (events ?? []).filter((e) => e.type === 'mousemove' || e.type === 'move').sort((a, b) => a.timestamp - b.timestamp);
  if (moves.length < MIN_MOVES) return null;
  let path = 0;
  const speeds: number[] = [];
  const directions = new Map<number, number>();
  for (let i = 1; i < moves.length; i++) {
    const a = moves[i - 1]!;
    const b = moves[i]!;
    const d = Math.hypot(b.x - a.x, b.y - a.y);
    path += d;
    const dt = b.timestamp - a.timestamp;
    if (dt > 0) speeds.push(d / dt);
    if (d > 0) {
      const bin = Math.floor(((Math.atan2(b.y - a.y, b.x - a.x) + Math.PI) / (2 * Math.PI)) * 16) % 16;
      directions.set(bin, (directions.get(bin) ?? 0) + 1);
    }
  }
  const first = moves[0]!;
  const last = moves.at(-1)!;
  const chord = Math.hypot(last.x - first.x, last.y - first.y);
  const dirs = [...directions.entries()].flatMap(([bin, n]) => Array<string>(n).fill(String.fromCharCode(65 + bin))).join('');
  return {
    straight: path > 0 && chord / path >= 0.995,
    constantSpeed: speeds.length >= MIN_MOVES - 1 && variation(speeds) < 0.05,
    ...(speeds.length > 0 ? { speed: mean(speeds) } : {}),
    intervals: gaps(moves.map((m) => m.timestamp)),
    directionEntropy: Math.min(1, entropy(dirs) / 4),
  };
}

function keyIntervals(raw: Raw['keystrokes'], aggregated: Aggregated['keystrokeTimings']): number[] {
  const downs = (raw ?? []).filter((k) => k.type === 'keydown' || k.type === 'down').map((k) => k.timestamp).sort((a, b) => a - b);
  if (downs.length > 1) return gaps(downs);
  return aggregated ?? [];
}

export function behaviorFacts(req: Pick<CheckRequest, 'behavior' | 'behavioral'>): { facts: BehaviorFacts; signals: Signal[] } {
  const mouse = mouseFacts(req.behavioral?.mouse);
  const keys = keyIntervals(req.behavioral?.keystrokes, req.behavior?.keystrokeTimings);
  const agg = req.behavior;
  const signals: Signal[] = [];
  const indicators: number[] = [];

  const nonHumanMouse = mouse !== null && (mouse.straight || mouse.constantSpeed);
  if (nonHumanMouse) {
    signals.push({ key: 'behavior.non_human_mouse', reason: 'Non-human mouse patterns' });
    indicators.push(0.6);
  }
  const automatedKeys = keys.length >= MIN_INTERVALS && variation(keys) < 0.1;
  if (automatedKeys) {
    signals.push({ key: 'behavior.automated_keystrokes', reason: 'Automated keystrokes' });
    indicators.push(0.6);
  }
  const unnatural =
    agg !== undefined &&
    ((agg.formFillSpeed !== undefined && agg.formFillSpeed < 1_000) || (agg.timeOnPage !== undefined && agg.timeOnPage < 1_500) || (agg.mouseMovements === 0 && (agg.timeOnPage ?? 0) > 0));
  if (unnatural) {
    signals.push({ key: 'behavior.unnatural_session', reason: 'Unnatural session behavior' });
    indicators.push(0.3);
  }

  // Each stream keeps its own cadence: stability is how regular the streams are, on average.
  const streams = [mouse?.intervals ?? [], keys].filter((g) => g.length >= MIN_INTERVALS);
  const stability = streams.length > 0 ? streams.reduce((acc, g) => acc + Math.max(0, 1 - (variation(g) || 0)), 0) / streams.length : 0;
  const emulator = streams.reduce((n, g) => n + g.length, 0) >= 2 * MIN_INTERVALS && stability >= 0.999;
  if (emulator) {
    signals.push({ key: 'behavior.emulator', reason: 'Emulator detected (Perfect Stability)' });
    indicators.push(0.7);
  }
  const botConfidence = 1 - indicators.reduce((keep, c) => keep * (1 - c), 1);
  if (botConfidence >= 0.5) {
    signals.push({ key: 'behavior.bot', reason: `Bot detected (${Math.round(botConfidence * 100)}% confidence)`, strength: botConfidence });
  }

  const hasData = mouse !== null || keys.length > 0 || agg !== undefined;
  const timestamps = [...(req.behavioral?.mouse ?? []), ...(req.behavioral?.keystrokes ?? [])].map((e) => e.timestamp);
  const rawSpan = timestamps.length > 1 ? Math.max(...timestamps) - Math.min(...timestamps) : undefined;
  const features: SessionFeatures = {};
  const aggSpeed = agg?.mouseMovements !== undefined && agg.timeOnPage ? agg.mouseMovements / agg.timeOnPage : undefined;
  const mouseSpeed = mouse?.speed ?? aggSpeed;
  if (mouseSpeed !== undefined) features.mouseSpeed = mouseSpeed;
  if (keys.length > 0) features.keyInterval = mean(keys);
  const sessionMs = agg?.timeOnPage ?? rawSpan;
  if (sessionMs !== undefined) features.sessionMs = sessionMs;

  return {
    facts: {
      biometrics: !hasData ? 'unknown' : emulator ? 'emulator' : botConfidence >= 0.5 ? 'bot' : 'human',
      stability: Math.round(stability * 1000) / 1000,
      entropy: Math.round((mouse?.directionEntropy ?? 0) * 1000) / 1000,
      botConfidence,
      features,
    },
    signals,
  };
}
