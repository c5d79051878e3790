/**
 * Legal forms of companies, folded as `foldName` folds them: words that say what kind of body a
 * company is, not which one. They are dropped from both sides of a comparison, so a form added,
 * dropped, abbreviated, spelled out or transliterated changes nothing (`ООО Ромашка` is
 * `Romashka LLC` is `Obshchestvo s ogranichennoy otvetstvennostyu Romashka`).
 *
 * ISO 20275 (the GLEIF Entity Legal Forms code list) would be the maintained source, but no npm
 * package ships it and this machine reaches only npm, Maven Central and Debian. This is the
 * smallest table that covers the forms of the jurisdictions the sanctions lists name most
 * (Russia, Ukraine, Belarus, Kazakhstan, Iran, the Arab states, China, the Koreas, Turkey, Latin
 * America, Europe, the UK and US), written by hand from the forms' own abbreviations and names.
 */

/** Single words: abbreviations and the words of spelled-out forms. */
export const LEGAL_FORM_WORDS: readonly string[] = [
  // English
  'ltd', 'limited', 'llc', 'llp', 'lp', 'inc', 'incorporated', 'co', 'corp', 'corporation', 'company', 'plc', 'pvt', 'liability',
  'joint', 'stock', 'partnership',
  // Russian, Ukrainian, Belarusian, Kazakh (and their transliterations)
  'ooo', 'oao', 'zao', 'pao', 'ao', 'jsc', 'ojsc', 'pjsc', 'cjsc', 'too', 'tov', 'prat', 'fgup', 'gup', 'mup', 'fsue',
  'obshchestvo', 'obshestvo', 'obschestvo', 'ogranichennoi', 'ogranichennoy', 'ogranichennoj', 'otvetstvennostyu', 'otvetstvennostiu',
  'otvetstvennostju', 'aktsionernoe', 'aktsionernoye', 'aktsionernoie', 'akcionernoe', 'zakrytoe', 'zakrytoye', 'otkrytoe', 'otkrytoye',
  'publichnoe', 'publichnoye', 'tovarishchestvo', 'tovaristvo', 'tovarystvo',
  // German, Dutch, Nordic
  'gmbh', 'mbh', 'ag', 'kg', 'ohg', 'bv', 'nv', 'ab', 'oy', 'oyj', 'asa', 'aps', 'as',
  // French, Spanish, Portuguese, Italian
  'sa', 'sas', 'sarl', 'srl', 'spa', 'sal', 'sae', 'sac', 'saa', 'ltda', 'limitada', 'sociedad', 'sociedade', 'societe', 'anonima', 'anonyme', 'compania', 'cia',
  // Central and Eastern Europe
  'sro', 'kft', 'zrt', 'nyrt', 'doo', 'dooel', 'ood', 'eood', 'ead',
  // Middle East and Asia
  'fze', 'fzco', 'fzc', 'fz', 'dmcc', 'wll', 'sharikat', 'sharikah', 'sharika', 'sherkat', 'shirkat', 'tic', 'sti', 'sirketi', 'anonim',
  'kk', 'kabushiki', 'kaisha', 'gongsi', 'youxian', 'pte', 'pty', 'bhd', 'berhad', 'sdn', 'tbk',
];

/**
 * Forms written as separate letters (`S.A. de C.V.`, `Sp. z o.o.`): dropped only as a whole phrase,
 * since single letters alone are initials.
 */
export const LEGAL_FORM_PHRASES: readonly string[] = [
  's a de c v', 's de r l de c v', 's de r l', 's a', 's l', 's r l', 's a s', 's p a', 's a r l', 's a l', 's a e', 's a c',
  'l l c', 'l l p', 'l p', 'p l c', 'n v', 'b v', 'a g', 'a s', 'a b', 's r o', 'd o o', 'sp z o o', 'sp z oo', 'g m b h', 'k k',
  'o o o', 'z a o', 'o a o', 'p a o', 'a o', 'j s c', 'co l l c', 'a sh', 'ltd sti',
];
