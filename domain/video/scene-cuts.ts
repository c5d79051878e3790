/**
 * Hard cuts from ffmpeg's per-frame scene scores (0 to 1). The threshold adapts to the footage:
 * well above the typical score (median plus eight median absolute deviations) and never below
 * `floor`, so a moving shot's steady change does not cut and a static one's noise does not either.
 * Cuts closer than `minGap` seconds to the previous one are one cut.
 */
export function sceneCuts(scores: { time: number; score: number }[], floor = 0.2, minGap = 0.5): { cuts: number[]; threshold: number } {
  if (scores.length === 0) return { cuts: [], threshold: floor };
  const sorted = scores.map((s) => s.score).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const mad = scores.map((s) => Math.abs(s.score - median)).sort((a, b) => a - b)[Math.floor(scores.length / 2)]!;
  const threshold = Math.max(floor, median + 8 * mad);
  const cuts: number[] = [];
  for (const s of scores) {
    // The first frame's score compares it with nothing.
    if (s.time <= 0 || s.score < threshold) continue;
    if (cuts.length > 0 && s.time - cuts.at(-1)! < minGap) continue;
    cuts.push(Math.round(s.time * 1000) / 1000);
  }
  return { cuts, threshold };
}
