import { nameWords } from './normalize.js';

/** Words of a listed name in reading order: OFAC's and the CSL's `LAST, First Middle` turned around. */
export const readingOrder = (name: string): string => {
  const comma = name.indexOf(',');
  return (comma > 0 ? `${name.slice(comma + 1)} ${name.slice(0, comma)}` : name).replace(/\s+/g, ' ').trim();
};

/**
 * Tokens of a listed person's name in reading order, each marked when a query must hold it to
 * name the person: the first and last word, every word of the surname where the list sets it
 * apart (`LAST, First Middle`: `ISAZA SANCHEZ, Felix Alberto` is not `Felix Sanchez`), and every
 * part of a hyphenated word (`Cipriano-Sanchez`). The others are middle names and patronymics.
 */
function markedTokens(listedName: string): { token: string; required: boolean }[] {
  const comma = listedName.indexOf(',');
  const given = comma > 0 ? listedName.slice(comma + 1) : listedName;
  const surname = comma > 0 ? listedName.slice(0, comma) : '';
  const whole = new Set(nameWords(listedName).tokens);
  const words = [...given.split(/\s+/).map((w) => ({ w, surname: false })), ...surname.split(/\s+/).map((w) => ({ w, surname: true }))]
    // A word alone keeps what the whole name drops (a lone particle such as `AL`): only the whole name's tokens count.
    .map(({ w, surname }) => ({ tokens: nameWords(w).tokens.filter((t) => whole.has(t)), surname, hyphen: w.includes('-') }))
    .filter((x) => x.tokens.length > 0);
  return words.flatMap((x, i) => x.tokens.map((token) => ({ token, required: i === 0 || i === words.length - 1 || x.surname || x.hyphen })));
}

/**
 * Whether the query is a listed person's name less some of their middle names or patronymics:
 * every query token is a token of the listed name (in canonical spelling, exactly), in the same
 * order, and only words the query may leave out (markedTokens) are missing. `Ali Khamenei` is
 * `KHAMENEI, Ali Husseini` so.
 */
export function onlyInnerNamesMissing(queryTokens: readonly string[], listedName: string): boolean {
  if (queryTokens.length < 2) return false;
  const listed = markedTokens(listedName);
  if (listed.length <= queryTokens.length) return false;
  let i = 0;
  for (const { token, required } of listed) {
    if (i < queryTokens.length && token === queryTokens[i]) i++;
    else if (required) return false;
  }
  return i === queryTokens.length;
}
