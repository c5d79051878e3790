import { autocompletion, type Completion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { hoverTooltip, type Tooltip } from '@codemirror/view';
import { ASPECTS, FRAME_RATES, RESOLUTIONS } from '../domain/video/ast.js';
import { DIRECTIVES } from '../domain/video/directives.js';
import { BUILT_IN_MOODS, MOOD_ALIASES, MOODS, PALETTE_ROLES, TRANSITION_KINDS, type BuiltInMood, type PaletteRole } from '../domain/video/moods.js';
import { h } from './dom.js';
import { OPTION_NAMES } from './language.js';
import { shared, type Asset } from './state.js';

/**
 * Completion and hover help from the language's own tables (directives and their usage, moods and
 * aliases, transitions, palette colours, film settings) and the organization's assets.
 */

const SCOPE_TEXT = { film: 'before the first scene', scene: 'inside a scene', both: 'for the film or inside a scene' } as const;

const directiveOptions: Completion[] = Object.entries(DIRECTIVES).map(([name, d]) => ({ label: name, type: 'keyword', detail: d.usage, info: `Stands ${SCOPE_TEXT[d.scope]}.` }));
const moodOptions: Completion[] = [
  ...BUILT_IN_MOODS.map((m) => ({ label: m, type: 'constant', detail: 'mood', info: MOODS[m].description })),
  ...Object.entries(MOOD_ALIASES).map(([alias, m]) => ({ label: alias, type: 'constant', detail: `alias of ${m}`, info: MOODS[m].description })),
];
const transitionOptions: Completion[] = TRANSITION_KINDS.map((k) => ({ label: k, type: 'enum', detail: 'transition' }));
const roleOptions = (): Completion[] => PALETTE_ROLES.map((r) => ({ label: r, type: 'variable', detail: `palette: ${paletteColor(r)}` }));
const listOptions = (values: readonly (string | number)[], detail: string): Completion[] => values.map((v) => ({ label: String(v), type: 'enum', detail }));

const KIND_OF: Record<string, RegExp> = { image: /^image\//, video: /^video\//, audio: /^(audio|video)\//, background: /^(image|video)\// };
const assetOptions = (directive: string | undefined): Completion[] =>
  shared.assets
    .filter((a) => !directive || !KIND_OF[directive] || KIND_OF[directive]!.test(a.mimetype))
    .map((a) => ({ label: `asset:${a.assetId}`, type: 'text', detail: a.filename, info: `${a.mimetype}, ${a.size} bytes` }));

/** The mood the film uses now: the last compile's, else the default. */
const currentMood = (): BuiltInMood => shared.graph?.film.mood ?? 'confident';
const paletteColor = (role: PaletteRole) => shared.graph?.style.palette[role] ?? MOODS[currentMood()].palette[role];

function complete(ctx: CompletionContext): CompletionResult | null {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const word = ctx.matchBefore(/[A-Za-z0-9_:.#-]*$/);
  const from = word ? word.from : ctx.pos;
  const typed = word?.text ?? '';
  const words = before.trim().split(/\s+/).filter(Boolean);
  const atStart = words.length === 0 || (words.length === 1 && !/\s$/.test(before));
  if (atStart) {
    if (!typed && !ctx.explicit) return null;
    return { from, options: directiveOptions, validFor: /^\w*$/ };
  }
  const directive = words[0];
  if (typed.startsWith('asset:') || typed === 'a' || typed === 'as') return { from, options: assetOptions(directive) };
  let options: Completion[];
  switch (directive) {
    case 'mood':
      options = moodOptions;
      break;
    case 'transition':
      options = words.length > 2 || (words.length === 2 && /\s$/.test(before)) ? [] : transitionOptions;
      break;
    case 'background':
      options = [...roleOptions(), ...assetOptions(directive)];
      break;
    case 'image':
    case 'video':
    case 'audio':
      options = [...assetOptions(directive), ...[...OPTION_NAMES].map((o) => ({ label: o, type: 'property' }))];
      break;
    case 'aspect':
      options = listOptions(ASPECTS, 'aspect');
      break;
    case 'resolution':
      options = listOptions(RESOLUTIONS, 'pixels');
      break;
    case 'fps':
      options = listOptions(FRAME_RATES, 'frames a second');
      break;
    default:
      return null;
  }
  if (options.length === 0 || (!typed && !ctx.explicit && !/\s$/.test(before))) return null;
  return { from, options };
}

export const completion = autocompletion({ override: [complete], activateOnTyping: true });

function swatches(palette: Record<string, string>): HTMLElement {
  return h('div', { class: 'swatches' }, ...Object.entries(palette).map(([role, c]) => h('span', { class: 'swatch', style: `background:${c}`, title: `${role} ${c}` })));
}

/** What a word of the script means, for the tooltip. */
function help(word: string, first: boolean): HTMLElement | null {
  const directive = first ? DIRECTIVES[word] : undefined;
  if (directive) return h('div', {}, h('code', {}, directive.usage), h('p', {}, `Stands ${SCOPE_TEXT[directive.scope]}.`));
  const mood = (BUILT_IN_MOODS as readonly string[]).includes(word) ? (word as BuiltInMood) : MOOD_ALIASES[word];
  if (mood) return h('div', {}, h('strong', {}, word === mood ? `mood ${mood}` : `${word}: alias of ${mood}`), h('p', {}, MOODS[mood].description), swatches({ ...MOODS[mood].palette }));
  if ((TRANSITION_KINDS as readonly string[]).includes(word)) return h('div', {}, h('strong', {}, `transition ${word}`), h('p', {}, word === 'cut' ? 'No transition: the next scene starts at once.' : 'Blends into the next scene; give a duration such as 0.5s.'));
  if ((PALETTE_ROLES as readonly string[]).includes(word)) {
    const c = paletteColor(word as PaletteRole);
    return h('div', {}, h('strong', {}, `palette ${word}`), h('p', {}, `${c} in mood ${currentMood()}`), h('span', { class: 'swatch', style: `background:${c}` }));
  }
  if (word.startsWith('asset:')) {
    const a: Asset | undefined = shared.assets.find((x) => `asset:${x.assetId}` === word);
    return h('div', {}, h('strong', {}, word), h('p', {}, a ? `${a.filename}, ${a.mimetype}, ${a.size} bytes` : 'Not an asset of this organization (upload it in Library).'));
  }
  return null;
}

export const hoverHelp = hoverTooltip((view, pos): Tooltip | null => {
  const line = view.state.doc.lineAt(pos);
  const text = line.text;
  let start = pos - line.from;
  let end = start;
  while (start > 0 && /[\w:.-]/.test(text[start - 1]!)) start--;
  while (end < text.length && /[\w:.-]/.test(text[end]!)) end++;
  if (start === end) return null;
  const word = text.slice(start, end);
  const first = text.slice(0, start).trim() === '';
  const dom = help(word, first);
  if (!dom) return null;
  return { pos: line.from + start, end: line.from + end, above: true, create: () => ({ dom: h('div', { class: 'hover-help' }, dom) }) };
});
