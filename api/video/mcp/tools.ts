import { z } from 'zod';
import { compile } from '../../../domain/video/compile.js';
import type { VideoScope } from '../../../domain/video/scopes.js';
import type { RenderJobs, Templates } from '../../../pipelines/video/ports.js';
import { expectingVersion, type Documents } from '../../../pipelines/video/documents.js';
import type { Clips } from '../../../pipelines/video/clips.js';
import { candidatesRequestSchema, clipDocumentCreateSchema, clipNameSchema, redraftSchema, windowRequestSchema, windowShape } from '../../../schemas/http/video-clips.js';
import { clipCall } from '../clips.js';
import { compileRequestSchema } from '../../../schemas/http/video.js';
import { documentCreateSchema, documentEditSchema, documentMetadataSchema } from '../../../schemas/http/video-documents.js';
import { refusing } from '../document-errors.js';
import { callerOf } from '../documents.js';
import type { Principal } from '../../http/auth.js';
import { badRequest, notFound } from '../../http/errors.js';
import { rejected } from '../errors.js';
import { presentJob } from '../render.js';

/**
 * The agent tools of the video service: one list feeds both the MCP server (/api/mcp) and the
 * tool listing (GET /api/mcp/tools). A tool answers a JSON value, or throws the HttpError the
 * same request would meet over HTTP; the MCP server reports it as a tool error the agent reads.
 */

export interface ToolContext {
  caller: Principal;
  /** The service's base address, for the absolute URLs of outputs. */
  origin: string;
}

export interface AgentTool {
  name: string;
  description: string;
  scope: VideoScope;
  input: z.ZodObject;
  run(ctx: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

const compileTool: AgentTool = {
  name: 'compile',
  description: 'Compile a video script into a render graph; answers the graph and its diagnostics (errors with line and column when it does not compile). Makes no video.',
  scope: 'render:write',
  // The same fields without the schema's OpenAPI id, which would turn the tool's input schema into a $ref.
  input: z.strictObject(compileRequestSchema.shape),
  async run(_ctx, args) {
    const body = compileRequestSchema.parse(args);
    const result = compile(body.source, { variables: body.variables, theme: body.theme, preview: body.preview });
    return result.ok ? { ok: true, renderGraph: result.renderGraph, diagnostics: result.diagnostics } : { ok: false, diagnostics: result.diagnostics };
  },
};

const { source, theme, preview, variables } = compileRequestSchema.shape;

function renderTool(jobs: RenderJobs): AgentTool {
  const input = z.strictObject({
    source: source.optional(),
    template: z.string().min(1).optional().meta({ description: 'Name of a saved template to render instead of a source' }),
    theme,
    preview,
    variables,
  });
  return {
    name: 'render',
    description: 'Queue a render of a script (source) or of a saved template (template and its variables) to an MP4; answers the job. Follow it with the status tool.',
    scope: 'render:write',
    input,
    async run({ caller, origin }, args) {
      const a = input.parse(args);
      if ((a.source === undefined) === (a.template === undefined)) throw badRequest('give exactly one of source or template');
      const opts = { theme: a.theme, preview: a.preview, variables: a.variables };
      const r = a.source !== undefined ? await jobs.submitSource(caller.orgId, { source: a.source, ...opts }) : await jobs.submitTemplate(caller.orgId, { template: a.template!, ...opts });
      if (!r.ok) throw rejected(r.rejection);
      return presentJob(r.job, origin);
    },
  };
}

function statusTool(jobs: RenderJobs): AgentTool {
  const input = z.strictObject({ jobId: z.string().min(1) });
  return {
    name: 'status',
    description: "A render job's status (queued, rendering, complete, failed), its progress from 0 to 1, the output (url, duration, size) when complete and the errors when failed.",
    scope: 'render:read',
    input,
    async run({ caller, origin }, args) {
      const { jobId } = input.parse(args);
      const job = await jobs.get(caller.orgId, jobId);
      if (!job) throw notFound(`no render job ${jobId} in this organization`);
      return presentJob(job, origin);
    },
  };
}

function templatesTool(templates: Templates): AgentTool {
  const input = z.strictObject({ name: z.string().min(1).optional().meta({ description: 'A template to read in full; without it, the list' }) });
  return {
    name: 'templates',
    description: "Without a name, the organization's templates (name, description, version, variables); with one, that template in full, its script included.",
    scope: 'templates:read',
    input,
    async run({ caller }, args) {
      const { name } = input.parse(args);
      if (name === undefined) return { templates: (await templates.list(caller.orgId)).map(({ source: _source, ...summary }) => summary) };
      const t = await templates.get(caller.orgId, name);
      if (!t) throw notFound(`no template named ${name} in this organization`);
      return t;
    },
  };
}

const documentId = z.string().min(1).max(100).meta({ description: 'A document id' });
const ifVersion = z.number().int().min(1).optional().meta({ description: 'Write only if this is still the current version (as If-Match does over HTTP)' });

function documentsTool(documents: Documents): AgentTool {
  const input = z.strictObject({
    id: documentId.optional().meta({ description: 'A document to read in full; without it, a page of the list' }),
    version: z.number().int().min(1).optional().meta({ description: 'With id: that version instead of the current one' }),
    cursor: z.string().max(200).optional().meta({ description: 'Without id: nextCursor of the previous page' }),
  });
  return {
    name: 'documents',
    description: "Without an id, the organization's script documents (id, name, version; 100 a page). With one, the document in full (source, metadata, version, lock), or one of its versions.",
    scope: 'documents:read',
    input,
    async run({ caller }, args) {
      const a = input.parse(args);
      const c = callerOf(caller);
      if (a.id === undefined) return documents.list(c, { limit: 100, cursor: a.cursor });
      const id = a.id;
      const version = a.version;
      return version === undefined ? refusing(() => documents.get(c, id)) : refusing(() => documents.version(c, id, version));
    },
  };
}

function documentSaveTool(documents: Documents): AgentTool {
  const input = z.strictObject({
    id: documentId.optional().meta({ description: 'The document to change; without it, a new one is created from name and source' }),
    name: documentCreateSchema.shape.name.optional(),
    source: documentCreateSchema.shape.source.optional(),
    metadata: documentMetadataSchema.optional(),
    ifVersion,
  });
  return {
    name: 'document_save',
    description: 'Create a script document (name and source), or save a new version of one (id and any of source, metadata, name). Answers the document; a lock held by another principal refuses the save.',
    scope: 'documents:write',
    input,
    async run({ caller }, args) {
      const { id, ifVersion: v, ...body } = input.parse(args);
      const c = callerOf(caller);
      if (id !== undefined) {
        if (body.name === undefined && body.source === undefined && body.metadata === undefined) throw badRequest('give source, metadata or name to save');
        return refusing(() => documents.put(c, id, body, expectingVersion(v)));
      }
      const created = documentCreateSchema.parse(body);
      return (await refusing(() => documents.create(c, created))).document;
    },
  };
}

function documentEditTool(documents: Documents): AgentTool {
  const input = z.strictObject({ id: documentId, ops: documentEditSchema.shape.ops, ifVersion });
  return {
    name: 'document_edit',
    description:
      'Structured edits of a document: JSON Patch operations (add, remove, replace, move, test) on /title, /mood, /scenes/<i>, /scenes/<i>/name, /scenes/<i>/duration, /scenes/<i>/transition, /scenes/<i>/layers/<j>/text. All or none; if the result does not compile, nothing is written and the diagnostics come back.',
    scope: 'documents:write',
    input,
    async run({ caller }, args) {
      const a = input.parse(args);
      return refusing(() => documents.edit(callerOf(caller), a.id, a.ops, expectingVersion(a.ifVersion)));
    },
  };
}

function clipCandidatesTool(clips: Clips): AgentTool {
  return {
    name: 'clip_candidates',
    description:
      "Clip candidates in a preprocessed source for a goal: windows of 15–60 s of consecutive sentences, best first, each {start, end, score, text, matched_terms, score_parts}. No goal term in the transcript: no candidates and a reason. Refine one with clip_refine, keep it with clip_document.",
    scope: 'sources:read',
    input: z.strictObject(candidatesRequestSchema.shape),
    run: ({ caller }, args) => clipCall(() => clips.candidates(caller.orgId, candidatesRequestSchema.parse(args))),
  };
}

function clipRefineTool(clips: Clips): AgentTool {
  return {
    name: 'clip_refine',
    description: "Snap a window {sourceId, start, end} of a preprocessed source to its sentences and to a shot cut within a second (else a small margin); answers {start, end, startsOn, endsOn}.",
    scope: 'sources:read',
    input: z.strictObject(windowShape),
    run: ({ caller }, args) => clipCall(() => clips.refine(caller.orgId, windowRequestSchema.parse(args))),
  };
}

function clipDocumentTool(clips: Clips): AgentTool {
  const { goal, start, end } = redraftSchema.shape;
  const input = z.strictObject({
    id: documentId.optional().meta({ description: 'A clip document to draft anew; without it, a new clip document is made from sourceId, start, end and name' }),
    sourceId: windowShape.sourceId.optional(),
    start,
    end,
    name: clipNameSchema.optional(),
    goal,
    ifVersion,
  });
  return {
    name: 'clip_document',
    description:
      'Make a clip document (sourceId, start, end, name): a script document that plays that window of the source with its transcript as timed captions, metadata.clip naming the window. With id: a new version for a new start/end, or for the best window for a goal. Render it with the render tool (its source) or over HTTP.',
    scope: 'documents:write',
    input,
    async run({ caller }, args) {
      const { id, ifVersion: v, sourceId, name, ...change } = input.parse(args);
      const c = callerOf(caller);
      if (id === undefined) return (await clipCall(() => clips.createDocument(c, clipDocumentCreateSchema.parse({ sourceId, name, ...change })))).document;
      if (sourceId !== undefined || name !== undefined) throw badRequest('with id, give start/end or goal; a clip document keeps its source and name');
      return clipCall(() => clips.redraft(c, id, redraftSchema.parse(change), expectingVersion(v)));
    },
  };
}

/** Every agent tool, over the service's render jobs, templates, documents and clips. */
export const agentTools = (deps: { jobs: RenderJobs; templates: Templates; documents: Documents; clips: Clips }): AgentTool[] => [
  compileTool,
  renderTool(deps.jobs),
  statusTool(deps.jobs),
  templatesTool(deps.templates),
  documentsTool(deps.documents),
  documentSaveTool(deps.documents),
  documentEditTool(deps.documents),
  clipCandidatesTool(deps.clips),
  clipRefineTool(deps.clips),
  clipDocumentTool(deps.clips),
];
