import { describe, expect, it } from 'vitest';
import { BUILT_IN_MOODS, FONT_FAMILIES, MOOD_ALIASES, MOODS, TRANSITION_KINDS, resolveMood } from './moods.js';

describe('moods', () => {
  it('has the seven built-ins, each with a full profile', () => {
    expect(Object.keys(MOODS)).toEqual(['confident', 'playful', 'dramatic', 'elegant', 'calm', 'urgent', 'precision']);
    for (const name of BUILT_IN_MOODS) {
      const m = MOODS[name];
      expect(m.name).toBe(name);
      for (const c of Object.values(m.palette)) expect(c).toMatch(/^#[0-9A-F]{6}$/);
      expect(FONT_FAMILIES).toContain(m.typography.title.family);
      expect(FONT_FAMILIES).toContain(m.typography.body.family);
      expect(TRANSITION_KINDS).toContain(m.transition.kind);
      expect(m.pacing.wordsPerSecond).toBeGreaterThan(0);
      expect(m.pacing.minSceneSeconds).toBeLessThan(m.pacing.sceneSeconds);
    }
  });

  it("maps Document 2's aliases and more to built-ins", () => {
    expect(resolveMood('cinematic')).toMatchObject({ requested: 'cinematic', alias: true, profile: { name: 'dramatic' } });
    for (const a of ['cinematic', 'electric', 'intimate', 'retro', 'corporate', 'technical', 'launch']) expect(resolveMood(a)?.alias).toBe(true);
    expect(Object.keys(MOOD_ALIASES).length).toBeGreaterThan(20);
    for (const target of Object.values(MOOD_ALIASES)) expect(BUILT_IN_MOODS).toContain(target);
  });

  it('resolves case-insensitively and refuses unknown names, inherited keys included', () => {
    expect(resolveMood(' Calm ')).toMatchObject({ requested: 'calm', alias: false, profile: { name: 'calm' } });
    expect(resolveMood('sleepy')).toBeNull();
    expect(resolveMood('constructor')).toBeNull();
  });
});
