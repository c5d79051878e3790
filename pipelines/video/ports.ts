import type { Variables } from '../../domain/video/args.js';
import type { Diagnostic } from '../../domain/video/diagnostics.js';
import type { BoundBreach } from '../../domain/video/render-bounds.js';
import type { Template, VariableIssue } from '../../domain/video/template.js';
import type { ThemeName } from '../../domain/video/themes.js';
import type { TranscriptChunk } from '../../domain/video/source.js';

/**
 * What the video service's callers (HTTP routes, the MCP tools) use of rendering and templates.
 * Every call is scoped to one organization: another organization's job or template is not there.
 */

export const RENDER_STATUSES = ['queued', 'rendering', 'complete', 'failed'] as const;
export type RenderStatus = (typeof RENDER_STATUSES)[number];

export interface RenderOutput {
  /** Path of the MP4 relative to the service's base address: `/api/video/<jobId>`. */
  url: string;
  durationSeconds: number;
  width: number;
  height: number;
  sizeBytes: number;
}

export interface RenderError {
  code: string;
  message: string;
}

export interface RenderJob {
  jobId: string;
  orgId: string;
  status: RenderStatus;
  /** 0 to 1, from ffmpeg's own progress output; 1 once complete. */
  progress: number;
  output?: RenderOutput;
  /** Set when failed. */
  errors?: RenderError[];
  origin: 'source' | 'file' | 'template' | 'document';
  /** The template's name, when rendered from one. */
  template?: string;
  /** Seconds of video the job makes: counted against the organization's daily allowance. */
  seconds?: number;
  /** The document and the version of it rendered, when rendered from one. */
  document?: { id: string; version: number };
  createdAt: string;
  updatedAt: string;
}

export type SubmitRejection =
  | { kind: 'compile_failed'; diagnostics: Diagnostic[] }
  | { kind: 'template_not_found'; name: string }
  | { kind: 'invalid_variables'; issues: VariableIssue[] }
  | { kind: 'over_bound'; breach: BoundBreach };

/** A job is only created (and queued durably) when the script compiles. */
export type SubmitResult = { ok: true; job: RenderJob } | { ok: false; rejection: SubmitRejection };

export interface RenderSourceRequest {
  source: string;
  theme?: ThemeName;
  /** Renders at 360p and at most 15 frames a second. */
  preview?: boolean;
  variables?: Variables;
  /** How the script arrived; default `source`. */
  origin?: 'source' | 'file' | 'document';
  /** The document version the source is, when origin is `document`. */
  document?: { id: string; version: number };
}

export interface RenderTemplateRequest {
  template: string;
  /** Checked against the template's variable schema; defaults fill those left out. */
  variables?: Record<string, unknown>;
  theme?: ThemeName;
  preview?: boolean;
}

export interface RenderJobs {
  submitSource(orgId: string, request: RenderSourceRequest): Promise<SubmitResult>;
  submitTemplate(orgId: string, request: RenderTemplateRequest): Promise<SubmitResult>;
  /** null when the organization has no job with this id. */
  get(orgId: string, jobId: string): Promise<RenderJob | null>;
}

export interface Templates {
  /** The organization's templates, by name. */
  list(orgId: string): Promise<Template[]>;
  get(orgId: string, name: string): Promise<Template | null>;
  /** Creates or replaces the template of that name. */
  put(orgId: string, template: Template): Promise<Template>;
  /** false when there was none. */
  remove(orgId: string, name: string): Promise<boolean>;
}

/** Speech to timed text, for sources with neither a subtitle track nor sidecar subtitles. */
export interface SpeechRecogniser {
  name: string;
  /** Chunks with word timings of the media `file`, the segments recognised side by side; times from the media's start. */
  recognise(file: string, segments: { start: number; end: number }[]): Promise<TranscriptChunk[]>;
}
