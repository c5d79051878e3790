import { describe, expect, it } from 'vitest';
import { DEFAULT_SUSPICIOUS_TLDS, emailSignals, looksRandom } from './email.js';

const facts = { isDisposableDomain: (d: string) => d === 'throwmail.example', suspiciousTlds: DEFAULT_SUSPICIOUS_TLDS };
const reasons = (email: string) => emailSignals(email, facts).map((s) => s.reason);

describe('email signals', () => {
  it.each([
    ['Disposable email domain', 'anna@throwmail.example', 'anna@example.com'],
    ['Suspicious email pattern', 'test123@example.com', 'testa.rossi@example.com'],
    ['Suspicious email pattern', 'aaaaab@example.com', 'aab@example.com'],
    ['Disposable keyword in email', 'anna@tempinbox.example', 'anna@example.com'],
    ['Random character pattern detected', 'xkqzvbtwpl@example.com', 'christopher@example.com'],
    ['Long numeric sequence in email', 'anna48213@example.com', 'anna1990@example.com'],
    ['Suspicious TLD: .tk', 'anna@shop.tk', 'anna@shop.de'],
  ])('%s: %s triggers it, %s does not', (reason, triggering, clean) => {
    expect(reasons(triggering)).toContain(reason);
    expect(reasons(clean)).not.toContain(reason);
  });

  it('a listed domain does not also count as a keyword', () => {
    expect(reasons('anna@tempmail.example')).toEqual(['Disposable keyword in email']);
    expect(emailSignals('anna@tempmail.example', { ...facts, isDisposableDomain: () => true }).map((s) => s.reason)).toEqual(['Disposable email domain']);
  });

  it('ordinary addresses raise nothing', () => {
    for (const e of ['john.smith@gmail.com', 'maria-garcia@company.co.uk', 'li.wei+news@example.org']) expect(reasons(e)).toEqual([]);
  });

  it('random local parts: long, evenly spread letters with few vowels', () => {
    expect(looksRandom('qwrtzpsdfg')).toBe(true);
    expect(looksRandom('bcdfgh')).toBe(false); // too short to judge
    expect(looksRandom('alexander.hamilton')).toBe(false);
  });
});
