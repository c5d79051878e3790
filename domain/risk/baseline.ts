import type { SessionFeatures } from './behavior.js';
import type { Signal } from './signal.js';

/**
 * Per-user behavioral baselines: the first BASELINE_SESSIONS sessions establish it (their features
 * are summed), later sessions are compared with the means. Deviation is |x - mean| / mean in %.
 */
export const BASELINE_SESSIONS = 3;
/** Above this a feature's deviation is reported. */
export const HIGH_DEVIATION_PCT = 50;

export interface Baseline {
  sessions: number;
  /** Sum and count per feature over the baseline sessions. */
  sums: Record<keyof SessionFeatures, { sum: number; n: number }>;
}

export const FEATURES = ['mouseSpeed', 'keyInterval', 'sessionMs'] as const satisfies readonly (keyof SessionFeatures)[];

const NAMES: Record<keyof SessionFeatures, { key: Signal['key']; label: string }> = {
  mouseSpeed: { key: 'continuous_auth.mouse_deviation', label: 'mouse' },
  keyInterval: { key: 'continuous_auth.keystroke_deviation', label: 'keystroke' },
  sessionMs: { key: 'continuous_auth.session_deviation', label: 'session' },
};

export const established = (b: Baseline): boolean => b.sessions >= BASELINE_SESSIONS;

/** Deviation in % of each feature the session and the baseline both have. */
export function deviations(b: Baseline, f: SessionFeatures): Partial<Record<keyof SessionFeatures, number>> {
  const out: Partial<Record<keyof SessionFeatures, number>> = {};
  for (const k of FEATURES) {
    const x = f[k];
    const { sum, n } = b.sums[k];
    if (x === undefined || n === 0) continue;
    const m = sum / n;
    if (m <= 0) continue;
    out[k] = Math.round((Math.abs(x - m) / m) * 100);
  }
  return out;
}

export interface BaselineVerdict {
  signals: Signal[];
  /** 0..100 mean deviation (the biometric deviation score), null when nothing was comparable. */
  deviationScore: number | null;
}

/**
 * Signals of one session against an established baseline. `behavioral` gates the biometric
 * deviation (features.behavioral_entropy), `continuous` the continuous-auth group.
 * `baselineDevice` says whether this device took part in building the baseline.
 */
export function compareWithBaseline(b: Baseline, f: SessionFeatures, opts: { behavioral: boolean; continuous: boolean; baselineDevice: boolean }): BaselineVerdict {
  if (!established(b)) return { signals: [], deviationScore: null };
  const dev = deviations(b, f);
  const values = Object.values(dev);
  if (values.length === 0) return { signals: [], deviationScore: null };
  const score = Math.min(100, Math.round(values.reduce((a, v) => a + v, 0) / values.length));
  const signals: Signal[] = [];
  if (opts.continuous) {
    for (const k of FEATURES) {
      const pct = dev[k];
      if (pct !== undefined && pct > HIGH_DEVIATION_PCT) signals.push({ key: NAMES[k].key, reason: `High ${NAMES[k].label} deviation: ${pct}% from baseline` });
    }
    if (!opts.baselineDevice && score >= HIGH_DEVIATION_PCT) signals.push({ key: 'continuous_auth.device_divergence', reason: 'Behavioral divergence across devices' });
    const consistency = 100 - score;
    if (consistency < 50) signals.push({ key: 'continuous_auth.low_consistency', reason: `Low behavioral consistency: ${consistency}%` });
  }
  if (opts.behavioral && score >= 40) signals.push({ key: 'behavior.biometric_deviation', reason: `Biometric deviation (score: ${score})`, strength: score / 100 });
  return { signals, deviationScore: score };
}
