/** Where the agent (MCP) endpoint lives: its routes, its OAuth metadata and the credential challenge name it. */
export const MCP_PATH = '/api/mcp';
