/**
 * What every one-time code (SDK sign-in, risk step-up challenges) obeys: one live code per user
 * and purpose, at most MAX_ATTEMPTS answers per code (then it is spent), and bounded starts per
 * user and per address in a fixed window.
 */
export const MAX_ATTEMPTS = 5;

export interface StartLimit {
  /** Named in the 429. */
  name: 'per_user' | 'per_address';
  max: number;
  windowMs: number;
}

export const START_LIMITS: Record<StartLimit['name'], StartLimit> = {
  per_user: { name: 'per_user', max: 5, windowMs: 10 * 60_000 },
  per_address: { name: 'per_address', max: 20, windowMs: 10 * 60_000 },
};

/** Why a code was refused. */
export const CODE_FAILURES = ['unknown', 'expired', 'used', 'replaced', 'exhausted', 'mismatch'] as const;
export type CodeFailure = (typeof CODE_FAILURES)[number];

export function failureMessage(failure: CodeFailure, attemptsLeft: number): string {
  switch (failure) {
    case 'unknown': return 'no such challenge in this organization';
    case 'expired': return 'the code has expired: issue a new challenge';
    case 'used': return 'the code was already used';
    case 'replaced': return 'a newer code was issued for the same purpose: only the latest works';
    case 'exhausted': return `no attempts left: ${MAX_ATTEMPTS} wrong answers spent the code, issue a new challenge`;
    case 'mismatch': return attemptsLeft > 0 ? `wrong code: ${attemptsLeft} attempt${attemptsLeft === 1 ? '' : 's'} left` : 'wrong code: no attempts left, issue a new challenge';
  }
}
