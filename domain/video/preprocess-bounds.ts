import type { BoundBreach } from './render-bounds.js';

/**
 * What one organization may ask of the shared preprocess workers: at most `concurrentJobs`
 * preprocessing jobs queued or running at once. Beyond, it may retry once one finishes (429).
 */
export function preprocessBreach(active: number, concurrentJobs: number): BoundBreach | undefined {
  if (active < concurrentJobs) return undefined;
  return {
    status: 429,
    limit: 'PREPROCESS_MAX_CONCURRENT_JOBS',
    message: `the organization has ${active} sources queued or running for preprocessing; at most ${concurrentJobs} at once (PREPROCESS_MAX_CONCURRENT_JOBS); retry when one finishes`,
  };
}
