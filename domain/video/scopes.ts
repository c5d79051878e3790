/**
 * The scopes a video credential can carry. A deployment key (API_KEYS) carries every scope; a
 * database principal carries the ones it was created with; a bearer token a subset of its minter's.
 */
export const VIDEO_SCOPES = [
  'render:read',
  'render:write',
  'templates:read',
  'templates:write',
  'assets:read',
  'assets:write',
  'documents:read',
  'documents:write',
  'sources:read',
  'sources:write',
  /** Listing, creating, changing and disabling principals (never beyond the caller's own scopes). */
  'principals:admin',
] as const;

export type VideoScope = (typeof VIDEO_SCOPES)[number];

export const isVideoScope = (s: string): s is VideoScope => (VIDEO_SCOPES as readonly string[]).includes(s);
