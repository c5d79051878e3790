import { describe, expect, it } from 'vitest';
import { behaviorFacts } from './behavior.js';

/** A human-like path: a curve with uneven steps and pauses. */
const humanMouse = Array.from({ length: 40 }, (_, i) => ({ type: 'mousemove', x: 100 + i * 7 + Math.round(12 * Math.sin(i / 3)), y: 200 + Math.round(40 * Math.sin(i / 5)) + (i % 3), timestamp: 1000 + i * 16 + ((i * 37) % 23) }));
/** A script: a straight line at one speed, one event every 10 ms. */
const scriptMouse = Array.from({ length: 40 }, (_, i) => ({ type: 'mousemove', x: 10 + i * 5, y: 20 + i * 5, timestamp: 1000 + i * 10 }));
const keys = (gaps: number[]) => gaps.reduce<{ key: string; type: string; timestamp: number }[]>((acc, g, i) => [...acc, { key: 'a', type: 'keydown', timestamp: (acc.at(-1)?.timestamp ?? 0) + (i === 0 ? 0 : g) }], []);
const humanGaps = [0, 180, 95, 240, 130, 310, 88, 150, 205, 120, 400, 97, 160];
const reasons = (input: Parameters<typeof behaviorFacts>[0]) => behaviorFacts(input).signals.map((s) => s.reason);

describe('behavioral signals', () => {
  it('a human session raises nothing', () => {
    const r = behaviorFacts({ behavioral: { mouse: humanMouse, keystrokes: keys(humanGaps) }, behavior: { timeOnPage: 45_000, formFillSpeed: 12_000, mouseMovements: 300 } });
    expect(r.signals).toEqual([]);
    expect(r.facts.biometrics).toBe('human');
    expect(r.facts.entropy).toBeGreaterThan(0.3);
  });

  it('Non-human mouse patterns: a straight line at constant speed', () => {
    expect(reasons({ behavioral: { mouse: scriptMouse } })).toContain('Non-human mouse patterns');
    expect(reasons({ behavioral: { mouse: humanMouse } })).not.toContain('Non-human mouse patterns');
  });

  it('Automated keystrokes: gaps on a timer', () => {
    expect(reasons({ behavior: { keystrokeTimings: Array(12).fill(50) } })).toContain('Automated keystrokes');
    expect(reasons({ behavior: { keystrokeTimings: humanGaps.slice(1) } })).not.toContain('Automated keystrokes');
  });

  it('Unnatural session behavior: a form filled in under a second', () => {
    expect(reasons({ behavior: { formFillSpeed: 400, timeOnPage: 20_000, mouseMovements: 30 } })).toContain('Unnatural session behavior');
    expect(reasons({ behavior: { formFillSpeed: 9_000, timeOnPage: 20_000, mouseMovements: 30 } })).not.toContain('Unnatural session behavior');
  });

  it('Emulator detected (Perfect Stability): perfectly regular events', () => {
    const r = behaviorFacts({ behavioral: { mouse: scriptMouse, keystrokes: keys(Array(20).fill(40)) } });
    expect(r.signals.map((s) => s.reason)).toContain('Emulator detected (Perfect Stability)');
    expect(r.facts).toMatchObject({ biometrics: 'emulator', stability: 1 });
    expect(reasons({ behavioral: { mouse: humanMouse, keystrokes: keys(humanGaps) } })).not.toContain('Emulator detected (Perfect Stability)');
  });

  it('Bot detected ({confidence}% confidence) when indicators add up', () => {
    const nearlyTimed = Array.from({ length: 12 }, (_, i) => (i % 2 ? 50 : 53));
    const r = reasons({ behavioral: { mouse: scriptMouse }, behavior: { keystrokeTimings: nearlyTimed } });
    expect(r).toEqual(['Non-human mouse patterns', 'Automated keystrokes', 'Bot detected (84% confidence)']);
    expect(reasons({ behavioral: { mouse: scriptMouse } }).some((x) => x.startsWith('Bot detected'))).toBe(true);
    expect(reasons({ behavior: { formFillSpeed: 400 } }).some((x) => x.startsWith('Bot detected'))).toBe(false);
  });

  it('without behavioral data, biometrics are unknown', () => {
    expect(behaviorFacts({}).facts).toMatchObject({ biometrics: 'unknown', features: {} });
  });

  it('extracts the features baselines compare', () => {
    const f = behaviorFacts({ behavior: { keystrokeTimings: [100, 200, 300], timeOnPage: 10_000, mouseMovements: 500 } }).facts.features;
    expect(f).toEqual({ keyInterval: 200, sessionMs: 10_000, mouseSpeed: 0.05 });
  });
});
