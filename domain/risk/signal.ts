import type { ScoringConfig } from '../../schemas/http/risk.js';
import { DEFAULT_POINTS } from './default-points.js';

type Groups = typeof DEFAULT_POINTS;
/** `<group>.<signal>`: where a signal's points live in the scoring configuration. */
export type PointKey = { [G in keyof Groups]: `${G}.${keyof Groups[G] & string}` }[keyof Groups];

/** One fired signal: the reason shown to the caller and the configuration key of its points. */
export interface Signal {
  key: PointKey;
  reason: string;
  /** Scales the configured points (a bot detected with 80% confidence counts 0.8 of bot). */
  strength?: number;
}

/** The points the configuration gives a signal. */
export function pointsOf(config: ScoringConfig, key: PointKey): number {
  const [group, name] = key.split('.') as [keyof Groups, string];
  return (config[group] as Record<string, number>)[name] ?? 0;
}
