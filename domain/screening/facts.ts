import { foldName } from './normalize.js';

/**
 * Identifying facts besides the name: dates of birth and nationalities, normalised at parse time
 * and compared at screen time to raise or lower a name score.
 */

const MONTHS: Record<string, string> = {
  jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', oct: '10', nov: '11', dec: '12',
};
const pad = (n: string) => n.padStart(2, '0');

/**
 * Dates of birth as written by the lists (`17 Feb 1960`, `Feb 1960`, `circa 1960`, `1958 to 1960`,
 * `1960-02-17`, `17/02/1960`, `00/00/1960`) into `YYYY-MM-DD`, `YYYY-MM`, `YYYY` or `YYYY..YYYY`.
 */
export function parseDob(text: string): string | null {
  const t = text.trim().toLowerCase().replace(/^(circa|approximately|about|c\.)\s*/, '');
  let m = /^(\d{4})\s*(?:to|-|–|\.\.)\s*(\d{4})$/.exec(t);
  if (m) return `${m[1]}..${m[2]}`;
  m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(t);
  if (m) return [m[1], m[2] && m[2] !== '00' ? m[2] : '', m[3] && m[3] !== '00' ? m[3] : ''].filter(Boolean).join('-');
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) {
    const [, d, mo, y] = m;
    if (mo === '00' || mo === '0') return y!;
    return d === '00' || d === '0' ? `${y}-${pad(mo!)}` : `${y}-${pad(mo!)}-${pad(d!)}`;
  }
  m = /^(?:(\d{1,2})\s+)?([a-z]{3})[a-z]*\.?\s+(\d{4})$/.exec(t);
  if (m && MONTHS[m[2]!]) return m[1] ? `${m[3]}-${MONTHS[m[2]!]}-${pad(m[1])}` : `${m[3]}-${MONTHS[m[2]!]}`;
  return null;
}

/** Evidence a date of birth gives: positive when it agrees, negative when every listed date contradicts it. */
export function dobEffect(query: string | undefined, dobs: readonly string[]): number {
  if (!query || dobs.length === 0) return 0;
  const qy = Number(query.slice(0, 4));
  let best = -Infinity;
  for (const d of dobs) {
    let e: number;
    if (d.includes('..')) {
      const [a, b] = d.split('..').map(Number) as [number, number];
      e = qy >= a && qy <= b ? 0.02 : qy >= a - 1 && qy <= b + 1 ? 0 : -0.12;
    } else if (query === d) e = 0.05;
    else if (query.startsWith(d)) e = d.length === 7 ? 0.03 : 0.02;
    else e = Math.abs(Number(d.slice(0, 4)) - qy) <= 1 ? 0 : -0.12;
    best = Math.max(best, e);
  }
  return best;
}

let names: Map<string, string> | undefined;

/** Country names of the lists and demonyms they use, beyond the English names of Intl. */
const EXTRA: Record<string, string> = {
  'democratic peoples republic of korea': 'KP', dprk: 'KP', 'north korea': 'KP', 'republic of korea': 'KR', 'south korea': 'KR',
  'russian federation': 'RU', 'syrian arab republic': 'SY', 'iran islamic republic of': 'IR', 'islamic republic of iran': 'IR',
  'united states of america': 'US', usa: 'US', uk: 'GB', 'great britain': 'GB', 'united kingdom of great britain and northern ireland': 'GB',
  'venezuela bolivarian republic of': 'VE', 'bolivarian republic of venezuela': 'VE', 'lao peoples democratic republic': 'LA',
  'democratic republic of the congo': 'CD', 'republic of the congo': 'CG', 'palestinian': 'PS', 'occupied palestinian territory': 'PS',
  'state of palestine': 'PS', 'west bank': 'PS', 'gaza': 'PS', 'burma': 'MM', 'viet nam': 'VN', 'turkiye': 'TR', 'moldova republic of': 'MD',
  'republic of moldova': 'MD', 'tanzania united republic of': 'TZ', 'united republic of tanzania': 'TZ', 'ivory coast': 'CI',
  'cote d ivoire': 'CI', 'czech republic': 'CZ', 'the gambia': 'GM', 'kosovo': 'XK', 'crimea': 'UA', 'region crimea': 'UA',
  iranian: 'IR', iraqi: 'IQ', syrian: 'SY', russian: 'RU', afghan: 'AF', pakistani: 'PK', lebanese: 'LB', yemeni: 'YE',
  'saudi arabian': 'SA', saudi: 'SA', libyan: 'LY', somali: 'SO', sudanese: 'SD', nigerian: 'NG', egyptian: 'EG', jordanian: 'JO',
  kuwaiti: 'KW', qatari: 'QA', emirati: 'AE', turkish: 'TR', chinese: 'CN', 'north korean': 'KP', korean: 'KP', belarusian: 'BY',
  ukrainian: 'UA', venezuelan: 'VE', cuban: 'CU', colombian: 'CO', mexican: 'MX', american: 'US', british: 'GB', german: 'DE',
  french: 'FR', indian: 'IN', indonesian: 'ID', malaysian: 'MY', filipino: 'PH', tunisian: 'TN', algerian: 'DZ', moroccan: 'MA',
  uzbek: 'UZ', tajik: 'TJ', kazakh: 'KZ', kyrgyz: 'KG', bosnian: 'BA', serbian: 'RS', kenyan: 'KE', ethiopian: 'ET', eritrean: 'ER',
};

/** ISO 3166 alpha-2 code of a country name, demonym or code, or null when not recognised. */
export function countryCode(text: string): string | null {
  const t = text.trim();
  if (/^[A-Za-z]{2}$/.test(t)) return t.toUpperCase();
  if (!names) {
    names = new Map(Object.entries(EXTRA));
    const display = new Intl.DisplayNames(['en'], { type: 'region' });
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = display.of(code);
        // Withdrawn codes (SU, ZR) display as their successors: the first, current code wins.
        if (name && name !== code && !names.has(foldName(name))) names.set(foldName(name), code);
      }
    }
  }
  return names.get(foldName(t)) ?? null;
}

/** Evidence a nationality gives: agreement helps a little, a clear contradiction costs more. */
export function nationalityEffect(query: string | undefined, nationalities: readonly string[]): number {
  if (!query || nationalities.length === 0) return 0;
  const q = query.toUpperCase();
  return nationalities.includes(q) ? 0.02 : nationalities.some((n) => /^[A-Z]{2}$/.test(n)) ? -0.05 : 0;
}
