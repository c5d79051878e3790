/** What a risk check is about, and what it answers. */
export const ACTIONS = ['signup', 'login', 'payment', 'password_reset', 'profile_update', 'default'] as const;
export type RiskAction = (typeof ACTIONS)[number];
export const OUTCOMES = ['allow', 'review', 'block'] as const;
export type Outcome = (typeof OUTCOMES)[number];
