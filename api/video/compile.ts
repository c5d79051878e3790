import { z } from 'zod';
import { compile, type CompileOptions } from '../../domain/video/compile.js';
import { closest } from '../../domain/video/diagnostics.js';
import { BUILT_IN_MOODS, MOOD_ALIASES, MOODS, moodNames, resolveMood } from '../../domain/video/moods.js';
import { compileRequestSchema, compileResponseSchema, healthSchema, moodListSchema, resolvedMoodSchema } from '../../schemas/http/video.js';
import { notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoApiDeps } from './deps.js';
import { SCRIPT_EXAMPLE } from './examples.js';
import { authErrors as errors, compileFailed, error } from './errors.js';
import type { VideoRoute } from './route.js';
import { readScriptFile, SCRIPT_FILE_DESCRIPTION } from './upload.js';

function compiled(source: string, options: CompileOptions) {
  const result = compile(source, options);
  if (!result.ok) throw compileFailed(result.diagnostics);
  return { renderGraph: result.renderGraph, diagnostics: result.diagnostics };
}

/** Health with a credential, the compiler and the moods. */
export function compileRoutes(deps: VideoApiDeps): VideoRoute[] {
  return [
    {
      method: 'get',
      path: '/api/health',
      summary: 'Health, as seen with a credential',
      responses: { 200: { description: 'Up', schema: healthSchema }, ...errors },
      handle: (req, res) => void res.json({ status: 'ok', timestamp: new Date(deps.platform.clock.now()).toISOString(), orgId: req.principal!.orgId }),
    },
    {
      method: 'post',
      path: '/api/compile',
      summary: 'Compile a script into a render graph (no video is made)',
      scope: 'render:write',
      description:
        'Answers the render graph with warnings; a script with errors answers 400 compile_failed with every diagnostic (level, code, message, line, column) at once. `theme` lays a theme pack over the mood; `preview` compiles for a 360p, 15 fps quick look; `variables` fill the {{name}} placeholders.',
      body: { schema: compileRequestSchema, example: SCRIPT_EXAMPLE },
      responses: {
        200: { description: 'The render graph and any warnings', schema: compileResponseSchema },
        400: error('compile_failed (diagnostics in the body) or validation_error (the request body itself is wrong)'),
        ...errors,
      },
      handle: (req, res) => {
        const body = parseOr400(compileRequestSchema, req.body, 'compile request');
        res.json(compiled(body.source, { variables: body.variables, theme: body.theme, preview: body.preview }));
      },
    },
    {
      method: 'post',
      path: '/api/compile/file',
      summary: 'Compile an uploaded script file (no video is made)',
      scope: 'render:write',
      description: `${SCRIPT_FILE_DESCRIPTION} Answers as POST /api/compile.`,
      responses: {
        200: { description: 'The render graph and any warnings', schema: compileResponseSchema },
        400: error('compile_failed (diagnostics in the body), a file that is not UTF-8 text, or bad form fields'),
        413: error('The file is over the limit'),
        415: error('Not multipart/form-data'),
        ...errors,
      },
      handle: async (req, res) => {
        const { source, ...options } = await readScriptFile(req, res);
        res.json(compiled(source, options));
      },
    },
    {
      method: 'get',
      path: '/api/moods',
      summary: 'The built-in moods with their full profiles, and the aliases',
      responses: { 200: { description: 'Moods and aliases', schema: moodListSchema }, ...errors },
      handle: (_req, res) => void res.json({ moods: BUILT_IN_MOODS.map((m) => MOODS[m]), aliases: MOOD_ALIASES }),
    },
    {
      method: 'get',
      path: '/api/moods/:name',
      summary: 'One mood, or the built-in an alias resolves to',
      params: z.object({ name: z.string() }),
      responses: { 200: { description: 'The resolved profile', schema: resolvedMoodSchema }, ...errors, 404: error('Neither a built-in mood nor an alias') },
      handle: (req, res) => {
        const name = String(req.params.name);
        const m = resolveMood(name);
        if (!m) {
          const near = closest(name, moodNames());
          throw notFound(`${name} is not a mood or an alias${near ? `; did you mean ${near}?` : ''}; GET /api/moods lists them`);
        }
        res.json({ name: m.requested, alias: m.alias, resolvesTo: m.profile.name, profile: m.profile });
      },
    },
  ];
}
