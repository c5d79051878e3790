import type { RenderGraph } from './render-graph.js';

/**
 * What one organization may ask of the shared render workers. A job over a per-job bound can never
 * render (400); an organization at its concurrent or daily bound may retry later (429).
 */
export interface RenderBounds {
  /** Jobs queued or rendering at once, per organization. */
  concurrentJobs: number;
  /** Seconds of output of one job. */
  jobSeconds: number;
  /** Seconds of output per organization over the last 24 hours. */
  secondsPerDay: number;
  /** Width × height × frames a second × seconds of one job: what its encode costs. */
  jobPixelFrames: number;
}

export interface OrgUsage {
  /** Jobs queued or rendering now. */
  active: number;
  /** Seconds of output of the jobs created in the last 24 hours. */
  secondsToday: number;
}

export type BoundBreach = { status: 400 | 429; limit: string; message: string };

/** The first bound a job of `graph` would break, given the organization's usage; undefined when it may render. */
export function breachedBound(film: RenderGraph['film'], usage: OrgUsage, bounds: RenderBounds): BoundBreach | undefined {
  const seconds = film.durationSeconds;
  if (seconds > bounds.jobSeconds) {
    return { status: 400, limit: 'RENDER_MAX_JOB_SECONDS', message: `the film lasts ${seconds}s; one render may make at most ${bounds.jobSeconds}s (RENDER_MAX_JOB_SECONDS)` };
  }
  const pixelFrames = film.width * film.height * film.fps * seconds;
  if (pixelFrames > bounds.jobPixelFrames) {
    return {
      status: 400,
      limit: 'RENDER_MAX_JOB_PIXEL_FRAMES',
      message: `${film.width}x${film.height} at ${film.fps} fps for ${seconds}s is ${pixelFrames} pixel-frames; one render may make at most ${bounds.jobPixelFrames} (RENDER_MAX_JOB_PIXEL_FRAMES): lower the resolution, the frame rate or the length`,
    };
  }
  if (usage.active >= bounds.concurrentJobs) {
    return { status: 429, limit: 'RENDER_MAX_CONCURRENT_JOBS', message: `the organization has ${usage.active} renders queued or rendering; at most ${bounds.concurrentJobs} at once (RENDER_MAX_CONCURRENT_JOBS); retry when one finishes` };
  }
  if (usage.secondsToday + seconds > bounds.secondsPerDay) {
    return {
      status: 429,
      limit: 'RENDER_MAX_SECONDS_PER_DAY',
      message: `the organization rendered ${usage.secondsToday}s in the last 24 hours; this ${seconds}s film would pass the ${bounds.secondsPerDay}s a day allowed (RENDER_MAX_SECONDS_PER_DAY)`,
    };
  }
  return undefined;
}
