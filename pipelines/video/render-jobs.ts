import { randomBytes } from 'node:crypto';
import type { Platform } from '../../infra/platform.js';
import { compile, type CompileOptions } from '../../domain/video/compile.js';
import type { Diagnostic } from '../../domain/video/diagnostics.js';
import { breachedBound, type RenderBounds } from '../../domain/video/render-bounds.js';
import type { RenderGraph } from '../../domain/video/render-graph.js';
import { fillVariables } from '../../domain/video/template.js';
import type { SourceReader } from '../../domain/video/source.js';
import type { AssetStore } from './assets.js';
import type { JobStore } from './job-store.js';
import type { RenderJob, RenderJobs, SubmitResult, Templates } from './ports.js';
import { encodeJson, type JobMessage } from './topics.js';

/**
 * Submission of renders: compiles the script (a template's with its checked variables), checks
 * that every asset and long-form source it names is one of the organization's, records the job as queued and puts it
 * on the render topic. A job exists only once both are durable.
 */

const DAY_MS = 86_400_000;

export function createRenderJobs(deps: { platform: Platform; store: JobStore; templates: Templates; assets: AssetStore; sources: SourceReader; topic: string }): RenderJobs {
  const { platform, store } = deps;
  const { config } = platform;
  const bounds: RenderBounds = {
    concurrentJobs: config.RENDER_MAX_CONCURRENT_JOBS,
    jobSeconds: config.RENDER_MAX_JOB_SECONDS,
    secondsPerDay: config.RENDER_MAX_SECONDS_PER_DAY,
    jobPixelFrames: config.RENDER_MAX_JOB_PIXEL_FRAMES,
  };

  /** Lines where each asset and source is first used, for a diagnostic that points at it. */
  function referenceLines(graph: RenderGraph): Map<string, number> {
    const lines = new Map<string, number>();
    const note = (id: string, line: number) => void (lines.has(id) || lines.set(id, line));
    for (const s of graph.scenes) {
      if (s.background.kind === 'asset') note(`asset:${s.background.assetId}`, s.line);
      for (const l of s.layers) {
        if (l.kind === 'image' || l.kind === 'video') note(`asset:${l.assetId}`, l.line);
        if (l.kind === 'clip') note(`source:${l.sourceId}`, l.line);
      }
      for (const a of s.audio) note(`asset:${a.assetId}`, s.line);
    }
    return lines;
  }

  /** An error at every asset or source the film names that is not the organization's. */
  async function foreignReferences(orgId: string, graph: RenderGraph): Promise<Diagnostic[]> {
    const lines = referenceLines(graph);
    const sourceIds = graph.sources ?? [];
    const [assets, sources] = await Promise.all([Promise.all(graph.assets.map((id) => deps.assets.meta(id))), Promise.all(sourceIds.map((id) => deps.sources.get(orgId, id)))]);
    const at = (ref: string) => ({ level: 'error' as const, line: lines.get(ref) ?? 1, column: 1 });
    return [
      ...graph.assets.flatMap((id, i) =>
        assets[i]?.orgId === orgId ? [] : [{ ...at(`asset:${id}`), code: 'unknown-asset', message: `asset:${id} is not an asset of this organization; upload it with POST /api/assets` }],
      ),
      ...sourceIds.flatMap((id, i) =>
        sources[i] ? [] : [{ ...at(`source:${id}`), code: 'unknown-source', message: `source:${id} is not a source of this organization; add it with POST /api/sources` }],
      ),
    ].sort((a, b) => a.line - b.line);
  }

  async function submit(orgId: string, source: string, options: CompileOptions, origin: RenderJob['origin'], from: Pick<RenderJob, 'template' | 'document'> = {}): Promise<SubmitResult> {
    const compiled = compile(source, options);
    if (!compiled.ok) return { ok: false, rejection: { kind: 'compile_failed', diagnostics: compiled.diagnostics } };
    const foreign = await foreignReferences(orgId, compiled.renderGraph);
    if (foreign.length > 0) return { ok: false, rejection: { kind: 'compile_failed', diagnostics: foreign } };
    // Read, then written: processes submitting for one organization at the same instant may pass a bound by a job or two.
    const breach = breachedBound(compiled.renderGraph.film, await store.usage(orgId, platform.clock.now() - DAY_MS), bounds);
    if (breach) return { ok: false, rejection: { kind: 'over_bound', breach } };
    const now = new Date(platform.clock.now()).toISOString();
    const seconds = compiled.renderGraph.film.durationSeconds;
    const job: RenderJob = { jobId: `job_${randomBytes(12).toString('hex')}`, orgId, status: 'queued', progress: 0, origin, ...from, seconds, createdAt: now, updatedAt: now };
    await store.create(job);
    const message: JobMessage = { jobId: job.jobId, orgId, graph: compiled.renderGraph };
    try {
      await platform.bus.send(deps.topic, [{ key: job.jobId, value: encodeJson(message) }]);
    } catch (err) {
      // Not queued: the caller gets an error, and the job's record says it never will render.
      await store.create({ ...job, status: 'failed', errors: [{ code: 'queue_unavailable', message: 'the render queue did not take the job' }] }).catch(() => undefined);
      throw err;
    }
    return { ok: true, job };
  }

  return {
    submitSource: (orgId, r) => submit(orgId, r.source, { variables: r.variables, theme: r.theme, preview: r.preview }, r.origin ?? 'source', r.document ? { document: r.document } : {}),
    async submitTemplate(orgId, r) {
      const template = await deps.templates.get(orgId, r.template);
      if (!template) return { ok: false, rejection: { kind: 'template_not_found', name: r.template } };
      const filled = fillVariables(template, r.variables ?? {});
      if (!filled.ok) return { ok: false, rejection: { kind: 'invalid_variables', issues: filled.issues } };
      return submit(orgId, template.source, { variables: filled.values, theme: r.theme, preview: r.preview, defaults: template.defaults }, 'template', { template: template.name });
    },
    get: (orgId, jobId) => store.get(orgId, jobId),
  };
}
