import type { Confidence, RelationshipType } from './entity.js';

/**
 * Relationship extraction from the free-text remarks of the lists (phrases catalogued in the
 * shared data README). Structured markers (`Linked To:`) and explicit kinship are `stated`;
 * association and corporate phrases are `inferred`; job titles are `weak` leads.
 */
export interface ExtractedRelation {
  type: RelationshipType;
  confidence: Confidence;
  /** The phrase as written, e.g. `daughter of Slobodan Milosevic`. */
  detail: string;
  /** Name of the other party; for a name that may end in a period, the bare form comes second. */
  targetNames: string[];
  /** A list reference given next to the name (UN style `(TAi.024)`). */
  targetRef?: string;
}

/** The phrase part matches in any case (`Brother of`, `brother of`); the name must start upper-case. */
const anyCase = (phrase: string) => phrase.replace(/[a-z]/gi, (ch) => `[${ch.toLowerCase()}${ch.toUpperCase()}]`);
const KIN = anyCase(
  '(?:half-|step-|grand)?(?:son|daughter|wife|husband|spouse|widow|brother|sister|father|mother|nephew|niece|cousin|uncle|aunt|child)(?:-in-law)?',
);
/** The text after a phrase up to clause punctuation, an alias marker or a parenthesis; `takeName` trims it. */
const NAME = "([A-Z][^;(),]*?)";
const NAME_END = '(?=\\s*(?:\\(|\\)|,|;|\\.(?:\\s|\\)|$)|\\s+a\\.k\\.a\\.|$))';
const REF = '(?:\\s*\\(([A-Z]{2}[ie]\\.\\d{3})\\))?';

interface Pattern {
  re: RegExp;
  type: RelationshipType | ((m: RegExpExecArray) => RelationshipType);
  confidence: Confidence;
  /** Group index of the target name. */
  name: number;
}

const ROLE_TYPE = (role: string): RelationshipType => (/owner/i.test(role) ? 'owner' : /agent|representative|acting/i.test(role) ? 'agent_of' : 'employee');

const PATTERNS: Pattern[] = [
  { re: new RegExp(`\\b(${KIN}) ${anyCase('of')} ${NAME}${NAME_END}${REF}`, 'g'), type: 'family_member', confidence: 'stated', name: 2 },
  { re: new RegExp(`\\b(${anyCase('married to')}) ${NAME}${NAME_END}${REF}`, 'g'), type: 'family_member', confidence: 'stated', name: 2 },
  {
    re: /((?:(?:[A-Z]|(?:al|el)-)[\w.'-]*\s+(?:(?:al|bin|ibn)\s+)?){0,5}(?:[A-Z]|(?:al|el)-)[\w.-]*)['\u2019]s (?:[a-z]+ )?(son|daughter|wife|husband|brother|sister)\b/g,
    type: 'family_member',
    confidence: 'stated',
    name: 1,
  },
  { re: new RegExp(`\\b(${anyCase('associated with|associate of')}) ${NAME}${NAME_END}${REF}`, 'g'), type: 'associate', confidence: 'inferred', name: 2 },
  { re: new RegExp(`\\b(${anyCase('subsidiary of|owned by|controlled by')}) ${NAME}${NAME_END}`, 'g'), type: 'owned_by', confidence: 'inferred', name: 2 },
  { re: new RegExp(`\\b(${anyCase('owner of|parent company of')}) ${NAME}${NAME_END}`, 'g'), type: 'owner', confidence: 'inferred', name: 2 },
  { re: new RegExp(`\\b(${anyCase('acting for or on behalf of')}) ${NAME}${NAME_END}${REF}`, 'g'), type: 'agent_of', confidence: 'inferred', name: 2 },
  { re: new RegExp(`\\b(${anyCase('related to')}) ${NAME}${NAME_END}${REF}`, 'g'), type: 'linked_to', confidence: 'weak', name: 2 },
  {
    re: new RegExp(`\\b((?:Co-)?(?:Director|Deputy Director|CEO|Chief Executive Officer|Chairman|President|Owner|Manager|General Manager|Founder|Co-founder|Head|Leader|Commander|Representative|Agent)) of ${NAME}${NAME_END}`, 'g'),
    type: (m) => ROLE_TYPE(m[1]!),
    confidence: 'weak',
    name: 2,
  },
];

const PARTICLE = /^(?:al|el|bin|ibn|bint|de|da|del|van|von|der|la|le|du|y|ul)$/;
const PREFIXED = /^(?:al|el|ad|as|ash|ar|an|at|az|ul)-\S+$/;
/** Lower-case words that continue a name when a capitalised word follows (`Islamic Movement of Uzbekistan`). */
const CONNECTOR = /^(?:of|the|for|in)$/;
const NAME_WORD = /^[A-Z\u00C0-\u00DE\u0100-\u024F'\u2018\u2019][\w'\u2019.\u00C0-\u024F-]*$/;
const TITLE = /^(?:President|Prime|Minister|Foreign|Deputy|General|Commander|Chief|Dr\.?|Mr\.?|Mrs\.?|Ms\.?|Sheikh|Mullah|Colonel|Brigadier|King|Prince|Leader|Former)$/;

/**
 * The name at the start of free text: capitalised words and name particles (`al-`, `bin`, `van`),
 * up to the first other word (`Dalkos LLC by receiving ...` -> `Dalkos LLC`), without leading
 * titles. Null when what is left is no name (a lone title, a single ordinary word).
 */
export function takeName(text: string): string | null {
  const words: string[] = [];
  const all = text.trim().split(/\s+/);
  for (let i = 0; i < all.length; i++) {
    const w = all[i]!;
    const continues = words.length > 0 && (PARTICLE.test(w) || PREFIXED.test(w) || (CONNECTOR.test(w) && NAME_WORD.test(all[i + 1] ?? '')));
    if (NAME_WORD.test(w) || continues) words.push(w);
    else break;
  }
  while (words.length > 0 && TITLE.test(words[0]!)) words.shift();
  while (words.length > 0 && PARTICLE.test(words[words.length - 1]!)) words.pop();
  if (words.length === 0) return null;
  // One word is a name only when written as one (HIZBALLAH, RSF), not an ordinary capitalised word.
  if (words.length === 1 && words[0] !== words[0]!.toUpperCase()) return null;
  return words.join(' ').replace(/[.\u2019']+$/, '');
}

/** Boilerplate that looks like a relationship but names no party (593 times in the SDN file). */
const BOILERPLATE = /Owned or Controlled By U\.S\. Financial Institutions|associated with this name/i;
const LINKED_TO = /^Linked To:\s*(.+)$/;
const PHRASE_HINT = /\b(?:of|to|with|by)\b|['\u2019]s\s/i;

/** Relationships in one remark. OFAC writes clauses separated by `; `; other lists write prose. */
export function extractRelations(remarks: string): ExtractedRelation[] {
  const out: ExtractedRelation[] = [];
  const seen = new Set<string>();
  const add = (r: ExtractedRelation) => {
    const key = `${r.type}|${r.targetNames[0]!.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(r);
  };
  for (const raw of remarks.split(/;\s+/)) {
    const clause = raw.trim();
    if (!clause || BOILERPLATE.test(clause)) continue;
    const linked = LINKED_TO.exec(clause);
    if (linked) {
      // Organisation names such as THIEVES-IN-LAW or THE SISTER TRUST stay names: no phrase search here.
      const name = linked[1]!.trim();
      const bare = name.replace(/\.$/, '');
      add({ type: 'linked_to', confidence: 'stated', detail: `Linked To: ${bare}`, targetNames: bare === name ? [name] : [name, bare] });
      continue;
    }
    // Every phrase pattern needs one of these words: most clauses (dates, ids, programs) skip the regexes.
    if (!PHRASE_HINT.test(clause)) continue;
    for (const p of PATTERNS) {
      p.re.lastIndex = 0;
      for (let m = p.re.exec(clause); m; m = p.re.exec(clause)) {
        const target = takeName(m[p.name]!);
        if (!target || target.split(/\s+/).length > 12) continue;
        const type = typeof p.type === 'function' ? p.type(m) : p.type;
        const detail = m[0].replace(/\s+/g, ' ').trim();
        const ref = m[m.length - 1] && /^[A-Z]{2}[ie]\.\d{3}$/.test(m[m.length - 1]!) ? m[m.length - 1] : undefined;
        add({ type, confidence: p.confidence, detail, targetNames: [target], ...(ref ? { targetRef: ref } : {}) });
      }
    }
  }
  return out;
}
