import type { FontFamily, Palette } from './moods.js';

/**
 * Theme packs: brand looks laid over a mood (the compile request's `theme`). A pack replaces some
 * palette colours and may change the type families; motion, transitions and pacing stay the mood's.
 */
export interface ThemePack {
  name: string;
  description: string;
  palette: Partial<Palette>;
  titleFamily?: FontFamily;
  bodyFamily?: FontFamily;
}

export const THEME_PACKS = {
  midnight: {
    name: 'midnight',
    description: 'Dark blue-black backgrounds with cool light text and a violet accent.',
    palette: { background: '#0D1021', surface: '#1B1F3B', primary: '#F5F7FF', accent: '#8B5CF6', text: '#D6DAF0', muted: '#8088B0' },
  },
  paper: {
    name: 'paper',
    description: 'Off-white paper with ink-black serif type.',
    palette: { background: '#FAF8F2', surface: '#EFEBE0', primary: '#111111', accent: '#D62828', text: '#222222', muted: '#6B6B6B' },
    titleFamily: 'DejaVu Serif',
    bodyFamily: 'DejaVu Serif',
  },
  neon: {
    name: 'neon',
    description: 'Black with electric pink and cyan.',
    palette: { background: '#000000', surface: '#14001F', primary: '#FF2BD6', accent: '#00F0FF', text: '#FFFFFF', muted: '#9A9AB0' },
  },
  mono: {
    name: 'mono',
    description: 'Black and white only, monospace body.',
    palette: { background: '#FFFFFF', surface: '#EEEEEE', primary: '#000000', accent: '#000000', text: '#111111', muted: '#777777' },
    bodyFamily: 'DejaVu Sans Mono',
  },
} as const satisfies Record<string, ThemePack>;

export type ThemeName = keyof typeof THEME_PACKS;
export const THEME_NAMES = Object.keys(THEME_PACKS) as [ThemeName, ...ThemeName[]];
