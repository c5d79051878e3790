import type { Signal } from './signal.js';

/**
 * Email signals (Document 1 part C, group Email). Pure: the disposable-domain list is a predicate
 * the caller passes in (infra/risk/email-domains.ts loads the maintained npm list).
 */

export interface EmailFacts {
  isDisposableDomain(domain: string): boolean;
  suspiciousTlds: ReadonlySet<string>;
}

/** Top-level domains abused far beyond their share of registrations (free or near-free registration). */
export const DEFAULT_SUSPICIOUS_TLDS: ReadonlySet<string> = new Set(['tk', 'ml', 'ga', 'cf', 'gq', 'xyz', 'top', 'click', 'work', 'buzz', 'icu', 'rest', 'cam', 'loan', 'zip', 'mov', 'monster', 'cyou', 'sbs']);

/** Words that name throwaway mailboxes; found in a domain that is not (yet) on the list. */
export const DISPOSABLE_KEYWORDS = ['temp', 'trash', 'throwaway', 'burner', 'disposable', 'fakemail', 'spam', 'minutemail', '10minute', 'guerrilla', 'discard', 'mailinator', 'yopmail', 'dropmail'];

/** Local parts people type to get past a form: placeholders, keyboard walks, one repeated character. */
const PLACEHOLDER = /^(test|testing|fake|spam|asdf|asdfgh|qwerty|qwertz|azerty|abc|abcd|abcdef|xxx+|temp|null|none|nobody|user|sample|example|foo|bar|foobar)[._-]?\d*$/;
const REPEATED = /(.)\1{3,}/;
const LONG_DIGITS = /\d{5,}/;
const VOWELS = /[aeiouy]/g;

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Machine-generated local parts: long, letters spread evenly (high entropy) and few vowels, or a
 * long run of consonants no language writes. `john.smith` and `christopher` pass; `xkqzvbtwpl` does not.
 */
export function looksRandom(local: string): boolean {
  const letters = local.toLowerCase().replace(/[^a-z]/g, '');
  if (letters.length < 8) return false;
  const vowelShare = (letters.match(VOWELS)?.length ?? 0) / letters.length;
  const longestConsonantRun = Math.max(0, ...letters.split(/[aeiouy]+/).map((r) => r.length));
  return (entropy(letters) >= 2.8 && vowelShare < 0.2) || longestConsonantRun >= 6;
}

export function emailSignals(email: string, facts: EmailFacts): Signal[] {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at).toLowerCase();
  const domain = email.slice(at + 1).toLowerCase();
  const labels = domain.split('.');
  const tld = labels.at(-1) ?? '';
  const out: Signal[] = [];
  const disposable = facts.isDisposableDomain(domain);
  if (disposable) out.push({ key: 'email.disposable', reason: 'Disposable email domain' });
  if (PLACEHOLDER.test(local) || REPEATED.test(local)) out.push({ key: 'email.suspicious_pattern', reason: 'Suspicious email pattern' });
  const name = labels.slice(0, -1).join('.');
  if (!disposable && DISPOSABLE_KEYWORDS.some((k) => name.includes(k))) out.push({ key: 'email.disposable_keyword', reason: 'Disposable keyword in email' });
  if (looksRandom(local)) out.push({ key: 'email.random_characters', reason: 'Random character pattern detected' });
  if (LONG_DIGITS.test(local)) out.push({ key: 'email.long_numeric', reason: 'Long numeric sequence in email' });
  if (facts.suspiciousTlds.has(tld)) out.push({ key: 'email.suspicious_tld', reason: `Suspicious TLD: .${tld}` });
  return out;
}
