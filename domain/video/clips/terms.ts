/**
 * Search terms of a text: lower-cased words of letters and digits, common English function words
 * dropped, and a light suffix folding (plural -s, -es, -oes, -ies) so "clips" finds "clip". The same
 * function reads the goal and the transcript, so both sides fold alike.
 */

const STOPWORDS = new Set(
  'a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its just me my no not of on or our out over she so some than that the their them then there these they this those to too up us was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

function fold(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if ((word.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(word)) || (word.length > 5 && word.endsWith('oes'))) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

export function termsOf(text: string): string[] {
  const words = text.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
  return words.map((w) => w.replace(/'[\p{L}]+$/u, '')).filter((w) => w.length > 0 && !STOPWORDS.has(w)).map(fold);
}
