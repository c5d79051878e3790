import { z } from 'zod';
import { compile } from '../../domain/video/compile.js';
import type { Template } from '../../domain/video/template.js';
import { resolveMood } from '../../domain/video/moods.js';
import { templateListSchema, templateSchema } from '../../schemas/http/video.js';
import { badRequest, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { VideoApiDeps } from './deps.js';
import { authErrors, compileFailed, error } from './errors.js';
import { TEMPLATE_EXAMPLE } from './examples.js';
import type { VideoRoute } from './route.js';

const byName = z.object({ name: z.string().meta({ description: 'The template name' }) });

/** Templates of the organization: a script and the schema of its variables. */
export function templateRoutes(deps: VideoApiDeps): VideoRoute[] {
  /** Checks a template as every write does and stores it. */
  async function register(orgId: string, t: Template): Promise<Template> {
    if (t.defaults.mood !== undefined && !resolveMood(t.defaults.mood)) throw badRequest(`defaults.mood: ${t.defaults.mood} is not a mood or an alias; GET /api/moods lists them`);
    const sample = Object.fromEntries(t.variables.map((v) => [v.name, v.default ?? v.example ?? (v.type === 'string' ? v.name : v.type === 'number' ? 1 : true)]));
    const compiled = compile(t.source, { variables: sample, defaults: t.defaults });
    if (!compiled.ok) throw compileFailed(compiled.diagnostics);
    const undeclared = compiled.renderGraph.variables.filter((name) => !t.variables.some((v) => v.name === name));
    if (undeclared.length > 0) throw badRequest(`the script uses ${undeclared.map((n) => `{{${n}}}`).join(', ')}, not declared in variables`);
    return deps.templates.put(orgId, t);
  }
  return [
    {
      method: 'get',
      path: '/api/templates',
      summary: 'The templates of the organization',
      scope: 'templates:read',
      responses: { 200: { description: 'Templates by name', schema: templateListSchema }, ...authErrors },
      handle: async (req, res) => void res.json({ templates: await deps.templates.list(req.principal!.orgId) }),
    },
    {
      method: 'post',
      path: '/api/templates',
      summary: 'Register a template (replaces one of the same name)',
      description:
        'The script must compile with its variables\' examples or defaults (or placeholders for the others); every {{name}} it uses must be declared. defaults.mood must be a built-in or an alias.',
      scope: 'templates:write',
      body: { schema: templateSchema, example: TEMPLATE_EXAMPLE },
      responses: { 201: { description: 'Registered', schema: templateSchema }, 400: error('validation_error or compile_failed'), ...authErrors },
      handle: async (req, res) => void res.status(201).json(await register(req.principal!.orgId, parseOr400(templateSchema, req.body, 'template'))),
    },
    {
      method: 'put',
      path: '/api/templates/:name',
      summary: 'Replace the template of this name: takes what GET answers back unchanged',
      description: 'The body is a whole template, as GET /api/templates/{name} answers it and checked as POST checks it; its name must be the one in the path.',
      scope: 'templates:write',
      params: byName,
      body: { schema: templateSchema, example: TEMPLATE_EXAMPLE },
      responses: { 200: { description: 'Stored', schema: templateSchema }, 400: error('validation_error, compile_failed, or a name other than the path\'s'), ...authErrors },
      handle: async (req, res) => {
        const t = parseOr400(templateSchema, req.body, 'template');
        if (t.name !== String(req.params.name)) throw badRequest(`name: the body names ${JSON.stringify(t.name)}, the path ${JSON.stringify(String(req.params.name))}`);
        res.json(await register(req.principal!.orgId, t));
      },
    },
    {
      method: 'get',
      path: '/api/templates/:name',
      summary: 'One template, in full',
      scope: 'templates:read',
      params: byName,
      responses: { 200: { description: 'The template', schema: templateSchema }, ...authErrors, 404: error('No template of that name in the organization') },
      handle: async (req, res) => {
        const t = await deps.templates.get(req.principal!.orgId, String(req.params.name));
        if (!t) throw notFound(`the organization has no template ${JSON.stringify(String(req.params.name))}`);
        res.json(t);
      },
    },
    {
      method: 'delete',
      path: '/api/templates/:name',
      summary: 'Remove a template',
      scope: 'templates:write',
      params: byName,
      responses: { 204: { description: 'Removed' }, ...authErrors, 404: error('No template of that name in the organization') },
      handle: async (req, res) => {
        if (!(await deps.templates.remove(req.principal!.orgId, String(req.params.name)))) throw notFound(`the organization has no template ${JSON.stringify(String(req.params.name))}`);
        res.status(204).end();
      },
    },
  ];
}
