import { z } from 'zod';
import { compile } from '../../../domain/video/compile.js';
import type { VideoScope } from '../../../domain/video/scopes.js';
import { compileRequestSchema } from '../../../schemas/http/video.js';
import type { Principal } from '../../http/auth.js';

/**
 * The agent tools of the video service: one list feeds both the MCP server (/api/mcp) and the
 * tool listing (GET /api/mcp/tools). A tool answers a JSON value, or throws a ToolError the MCP
 * server reports as a tool error (the agent reads its message).
 */

export class ToolError extends Error {}

export interface AgentTool {
  name: string;
  description: string;
  scope: VideoScope;
  input: z.ZodObject;
  run(caller: Principal, args: Record<string, unknown>): Promise<unknown>;
}

export const compileTool: AgentTool = {
  name: 'compile',
  description: 'Compile a video script into a render graph; answers the graph and its diagnostics (errors with line and column when it does not compile). Makes no video.',
  scope: 'render:write',
  // The same fields without the schema's OpenAPI id, which would turn the tool's input schema into a $ref.
  input: z.strictObject(compileRequestSchema.shape),
  async run(_caller, args) {
    const body = compileRequestSchema.parse(args);
    const result = compile(body.source, { variables: body.variables, theme: body.theme, preview: body.preview });
    return result.ok ? { ok: true, renderGraph: result.renderGraph, diagnostics: result.diagnostics } : { ok: false, diagnostics: result.diagnostics };
  },
};
