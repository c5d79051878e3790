/**
 * Moods: art-direction presets a script names with `mood`. A mood sets the palette, typography,
 * motion, the default transition between scenes and the pacing the compiler checks text against.
 * Font families are fontconfig names of Debian's fonts-dejavu-core and fonts-noto-core, so a
 * render finds them by name on any machine with those packages.
 */

export const FONT_FAMILIES = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono', 'Noto Sans', 'Noto Serif'] as const;
export type FontFamily = (typeof FONT_FAMILIES)[number];

export const TRANSITION_KINDS = ['cut', 'fade', 'fadeblack', 'fadewhite', 'dissolve', 'wipeleft', 'wiperight', 'wipeup', 'wipedown', 'slideleft', 'slideright', 'slideup', 'slidedown', 'circleopen', 'circleclose', 'radial', 'zoomin'] as const;
export type TransitionKind = (typeof TRANSITION_KINDS)[number];

/** How text enters a scene. */
export const TEXT_ENTRANCES = ['cut', 'fade', 'rise', 'pop'] as const;
export type TextEntrance = (typeof TEXT_ENTRANCES)[number];

export interface Palette {
  /** Scene background when a scene names none. */
  background: string;
  /** Panels and secondary backgrounds. */
  surface: string;
  /** Titles. */
  primary: string;
  /** Highlights. */
  accent: string;
  /** Body text. */
  text: string;
  /** Secondary text. */
  muted: string;
}
export type PaletteRole = keyof Palette;
export const PALETTE_ROLES: readonly PaletteRole[] = ['background', 'surface', 'primary', 'accent', 'text', 'muted'];

export interface TypeFace {
  family: FontFamily;
  weight: 'regular' | 'bold';
  /** Font size as a fraction of the frame's shorter side. */
  scale: number;
}

export interface MoodProfile {
  name: BuiltInMood;
  description: string;
  palette: Palette;
  typography: { title: TypeFace; body: TypeFace; /** Extra space between lines, as a fraction of the font size. */ lineSpacing: number };
  motion: { textEntrance: TextEntrance; /** Seconds the entrance takes. */ entranceSeconds: number; /** Seconds between successive text layers entering. */ staggerSeconds: number };
  transition: { kind: TransitionKind; seconds: number };
  pacing: { /** Comfortable reading speed; text faster than this draws a warning. */ wordsPerSecond: number; /** Scene length a generator should aim for. */ sceneSeconds: number; /** Shorter scenes draw a warning. */ minSceneSeconds: number };
}

export const BUILT_IN_MOODS = ['confident', 'playful', 'dramatic', 'elegant', 'calm', 'urgent', 'precision'] as const;
export type BuiltInMood = (typeof BUILT_IN_MOODS)[number];

const face = (family: FontFamily, weight: TypeFace['weight'], scale: number): TypeFace => ({ family, weight, scale });

export const MOODS: Readonly<Record<BuiltInMood, MoodProfile>> = {
  confident: {
    name: 'confident',
    description: 'Clear, assured, direct: strong sans titles on deep navy, quick clean fades.',
    palette: { background: '#0B1F3A', surface: '#16325C', primary: '#FFFFFF', accent: '#F5A623', text: '#E6EDF5', muted: '#8FA3BF' },
    typography: { title: face('DejaVu Sans', 'bold', 0.09), body: face('DejaVu Sans', 'regular', 0.045), lineSpacing: 0.25 },
    motion: { textEntrance: 'rise', entranceSeconds: 0.4, staggerSeconds: 0.2 },
    transition: { kind: 'fade', seconds: 0.5 },
    pacing: { wordsPerSecond: 3, sceneSeconds: 4, minSceneSeconds: 1.5 },
  },
  playful: {
    name: 'playful',
    description: 'Bright and bouncy: warm colours, rounded sans, slides and pops.',
    palette: { background: '#FFF4E0', surface: '#FFD6A5', primary: '#FF5D8F', accent: '#3A86FF', text: '#2B2D42', muted: '#6C757D' },
    typography: { title: face('Noto Sans', 'bold', 0.1), body: face('Noto Sans', 'regular', 0.05), lineSpacing: 0.3 },
    motion: { textEntrance: 'pop', entranceSeconds: 0.3, staggerSeconds: 0.15 },
    transition: { kind: 'slideleft', seconds: 0.4 },
    pacing: { wordsPerSecond: 3.2, sceneSeconds: 3, minSceneSeconds: 1 },
  },
  dramatic: {
    name: 'dramatic',
    description: 'High contrast and slow reveals: serif titles on black, fades through black.',
    palette: { background: '#050505', surface: '#1A1A1A', primary: '#F2F2F2', accent: '#C1121F', text: '#D9D9D9', muted: '#7A7A7A' },
    typography: { title: face('DejaVu Serif', 'bold', 0.1), body: face('DejaVu Serif', 'regular', 0.045), lineSpacing: 0.3 },
    motion: { textEntrance: 'fade', entranceSeconds: 1, staggerSeconds: 0.5 },
    transition: { kind: 'fadeblack', seconds: 1 },
    pacing: { wordsPerSecond: 2.2, sceneSeconds: 5, minSceneSeconds: 2.5 },
  },
  elegant: {
    name: 'elegant',
    description: 'Refined and quiet: serif type, ivory and gold, long dissolves.',
    palette: { background: '#F7F3EA', surface: '#E9E1D0', primary: '#1F1B16', accent: '#B08D57', text: '#3B342B', muted: '#8C8273' },
    typography: { title: face('Noto Serif', 'regular', 0.085), body: face('Noto Serif', 'regular', 0.04), lineSpacing: 0.35 },
    motion: { textEntrance: 'fade', entranceSeconds: 0.8, staggerSeconds: 0.4 },
    transition: { kind: 'dissolve', seconds: 0.8 },
    pacing: { wordsPerSecond: 2.5, sceneSeconds: 4.5, minSceneSeconds: 2 },
  },
  calm: {
    name: 'calm',
    description: 'Soft and unhurried: muted greens and blues, gentle fades, room to read.',
    palette: { background: '#E8F1EE', surface: '#CFE3DC', primary: '#2F4858', accent: '#5C9E8A', text: '#33454F', muted: '#7D9199' },
    typography: { title: face('Noto Sans', 'regular', 0.08), body: face('Noto Sans', 'regular', 0.042), lineSpacing: 0.4 },
    motion: { textEntrance: 'fade', entranceSeconds: 0.9, staggerSeconds: 0.4 },
    transition: { kind: 'fade', seconds: 1 },
    pacing: { wordsPerSecond: 2.3, sceneSeconds: 5, minSceneSeconds: 2.5 },
  },
  urgent: {
    name: 'urgent',
    description: 'Fast and loud: red and yellow on black, bold sans, hard wipes.',
    palette: { background: '#111111', surface: '#2A2A2A', primary: '#FFD60A', accent: '#E63946', text: '#FFFFFF', muted: '#B0B0B0' },
    typography: { title: face('DejaVu Sans', 'bold', 0.11), body: face('DejaVu Sans', 'bold', 0.05), lineSpacing: 0.15 },
    motion: { textEntrance: 'cut', entranceSeconds: 0, staggerSeconds: 0.1 },
    transition: { kind: 'wipeleft', seconds: 0.25 },
    pacing: { wordsPerSecond: 3.5, sceneSeconds: 2, minSceneSeconds: 0.8 },
  },
  precision: {
    name: 'precision',
    description: 'Technical and exact: monospace body, cool greys and a cyan accent, crisp cuts.',
    palette: { background: '#0E1116', surface: '#1C2128', primary: '#F0F6FC', accent: '#2DD4BF', text: '#C9D1D9', muted: '#6E7681' },
    typography: { title: face('DejaVu Sans', 'bold', 0.08), body: face('DejaVu Sans Mono', 'regular', 0.04), lineSpacing: 0.3 },
    motion: { textEntrance: 'fade', entranceSeconds: 0.25, staggerSeconds: 0.15 },
    transition: { kind: 'cut', seconds: 0 },
    pacing: { wordsPerSecond: 2.8, sceneSeconds: 3.5, minSceneSeconds: 1.5 },
  },
};

/** Creative terms mapped to the closest built-in mood. */
export const MOOD_ALIASES: Readonly<Record<string, BuiltInMood>> = {
  // Document 2's examples
  cinematic: 'dramatic',
  electric: 'urgent',
  intimate: 'calm',
  retro: 'playful',
  corporate: 'confident',
  technical: 'precision',
  launch: 'confident',
  // more
  bold: 'confident',
  professional: 'confident',
  trustworthy: 'confident',
  keynote: 'confident',
  fun: 'playful',
  friendly: 'playful',
  whimsical: 'playful',
  quirky: 'playful',
  epic: 'dramatic',
  moody: 'dramatic',
  suspense: 'dramatic',
  noir: 'dramatic',
  luxury: 'elegant',
  premium: 'elegant',
  sophisticated: 'elegant',
  editorial: 'elegant',
  serene: 'calm',
  soothing: 'calm',
  mindful: 'calm',
  warm: 'calm',
  energetic: 'urgent',
  hype: 'urgent',
  breaking: 'urgent',
  sale: 'urgent',
  minimal: 'precision',
  analytical: 'precision',
  data: 'precision',
  engineering: 'precision',
};

export interface ResolvedMood {
  /** The name as written, lower-cased. */
  requested: string;
  /** The alias's target, or the name itself for a built-in. */
  profile: MoodProfile;
  alias: boolean;
}

/** A built-in mood or an alias, case-insensitively; null when neither. */
export function resolveMood(name: string): ResolvedMood | null {
  const key = name.trim().toLowerCase();
  if ((BUILT_IN_MOODS as readonly string[]).includes(key)) return { requested: key, profile: MOODS[key as BuiltInMood], alias: false };
  const target = Object.hasOwn(MOOD_ALIASES, key) ? MOOD_ALIASES[key] : undefined;
  return target ? { requested: key, profile: MOODS[target], alias: true } : null;
}

/** Every name `mood` accepts. */
export const moodNames = (): string[] => [...BUILT_IN_MOODS, ...Object.keys(MOOD_ALIASES)];

export const DEFAULT_MOOD: BuiltInMood = 'confident';
