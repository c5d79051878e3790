import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { agentToolListSchema } from '../../../schemas/http/video-auth.js';
import { videoErrorSchema } from '../../../schemas/http/video.js';
import { MCP_PATH } from './path.js';
import { scopesOf } from '../auth/resolver.js';
import type { VideoRoute } from '../route.js';
import type { AgentTool, ToolContext } from './tools.js';
import { HttpError } from '../../http/errors.js';

/**
 * The agent transport: a Model Context Protocol server over streamable HTTP, stateless (a server
 * and a transport per request, so any API process answers any call), serving the tools as the
 * caller's credential allows. The credential is resolved before the MCP layer sees the request.
 */

const text = (value: unknown, isError = false) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], ...(isError ? { isError } : {}) });

function serverFor(ctx: ToolContext, tools: AgentTool[]): McpServer {
  const server = new McpServer({ name: 'weir-video', version: '0.1.0' });
  for (const tool of tools) {
    server.registerTool(tool.name, { description: `${tool.description} Needs the scope ${tool.scope}.`, inputSchema: tool.input }, async (args: Record<string, unknown>) => {
      if (!scopesOf(ctx.caller).includes(tool.scope)) return text({ error: `this credential lacks the scope ${tool.scope}` }, true);
      try {
        return text(await tool.run(ctx, args));
      } catch (err) {
        if (err instanceof HttpError) return text({ error: err.message, ...err.extra }, true);
        if (err instanceof z.ZodError) return text({ error: err.message }, true);
        throw err;
      }
    });
  }
  return server;
}

export function mcpRoutes(tools: AgentTool[]): VideoRoute[] {
  const error = (description: string) => ({ description, schema: videoErrorSchema });
  const transport: Omit<VideoRoute, 'method' | 'summary'> = {
    path: MCP_PATH,
    description: 'MCP streamable HTTP (JSON-RPC 2.0; protocol revision 2025-03-26 and later), stateless: no session id. Send x-api-key or a bearer token (POST /oauth/token).',
    responses: { 200: { description: 'A JSON-RPC response (JSON or an event stream)' }, 401: error('No or a bad credential; WWW-Authenticate points to the protected resource metadata') },
    handle: async (req, res) => {
      const server = serverFor({ caller: req.principal!, origin: `${req.protocol}://${req.get('host')}` }, tools);
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void Promise.all([t.close(), server.close()]));
      await server.connect(t);
      await t.handleRequest(req, res, req.body);
    },
  };
  return [
    {
      method: 'get',
      path: `${MCP_PATH}/tools`,
      summary: 'The agent tools, their scopes and input schemas',
      responses: { 200: { description: 'Tools', schema: agentToolListSchema }, 401: error('No or a bad credential') },
      handle: (req, res) =>
        void res.json({
          transport: `${req.protocol}://${req.get('host')}${MCP_PATH}`,
          tools: tools.map((t) => ({ name: t.name, description: t.description, scope: t.scope, inputSchema: z.toJSONSchema(t.input, { io: 'input' }) })),
        }),
    },
    { ...transport, method: 'post', summary: 'Model Context Protocol requests (initialize, tools/list, tools/call)' },
    { ...transport, method: 'get', summary: 'MCP server-to-client stream: not offered by this stateless server (405)' },
    { ...transport, method: 'delete', summary: 'MCP session end: nothing to end on this stateless server (405)' },
  ];
}
