import { z } from 'zod';
import { VIDEO_SCOPES } from '../../domain/video/scopes.js';

/**
 * Wire schemas of the video service's credentials (Document 2 "Authentication", CONTRACTS.md
 * sections 2 and 8): principals, session tokens, OAuth metadata and the token endpoint, agent tools.
 */

/** Bounds and default of a session token's lifetime, in seconds (README, video credentials). */
export const TOKEN_TTL = { min: 60, max: 86_400, default: 900 } as const;

const scope = z.enum(VIDEO_SCOPES);
const scopes = z.array(scope).max(VIDEO_SCOPES.length);

export const principalSchema = z
  .object({
    id: z.string(),
    orgId: z.string(),
    type: z.literal('api_key'),
    name: z.string(),
    scopes: z.array(scope),
    disabled: z.boolean(),
    createdAt: z.string().meta({ description: 'ISO 8601' }),
    createdBy: z.string().meta({ description: 'The principal (or deployment key) that created it' }),
    disabledAt: z.string().nullable(),
    disabledBy: z.string().nullable(),
  })
  .meta({ id: 'Principal' });
export type VideoPrincipal = z.infer<typeof principalSchema>;

export const principalCreateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    scopes: scopes.min(1).meta({ description: "A subset of the caller's own scopes" }),
  })
  .meta({ id: 'PrincipalCreate', example: { name: 'render bot', scopes: ['render:read', 'render:write'] } });

export const principalCreatedSchema = z
  .object({ principal: principalSchema, apiKey: z.string().meta({ description: 'Shown this once; only its SHA-256 digest is stored' }) })
  .meta({ id: 'PrincipalCreated' });

/** What PATCH /api/principals/{id} takes: a principal as GET answers it, or part of it; only name and scopes are read. */
export const principalPatchSchema = principalSchema
  .partial()
  .extend({ name: principalCreateSchema.shape.name.optional(), scopes: scopes.min(1).optional() })
  .strict()
  .meta({ id: 'PrincipalPatch', example: { name: 'render bot', scopes: ['render:read', 'render:write'] } });

export const principalListSchema = z.object({ principals: z.array(principalSchema) }).meta({ id: 'PrincipalList' });

export const sessionTokenRequestSchema = z
  .strictObject({
    ttlSeconds: z
      .number()
      .int()
      .min(TOKEN_TTL.min)
      .max(TOKEN_TTL.max)
      .default(TOKEN_TTL.default)
      .meta({ description: `Lifetime in seconds, ${TOKEN_TTL.min} to ${TOKEN_TTL.max}; default ${TOKEN_TTL.default}` }),
    scopes: scopes.optional().meta({ description: "A subset of the caller's scopes; default all of them" }),
  })
  .meta({ id: 'SessionTokenRequest' });

export const sessionTokenSchema = z
  .object({
    tokenType: z.literal('Bearer'),
    accessToken: z.string().meta({ description: 'A JWT signed with HS256 under BEARER_SIGNING_SECRET' }),
    orgId: z.string(),
    principalId: z.string(),
    scopes: z.array(scope),
    issuedAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'SessionToken' });

export const oauthTokenRequestSchema = z
  .object({
    grant_type: z.string().meta({ description: 'client_credentials' }),
    client_id: z.string().meta({ description: 'The principal id' }),
    client_secret: z.string().meta({ description: "The principal's API key" }),
    scope: z.string().optional().meta({ description: "Space-separated scopes, a subset of the principal's; default all of them" }),
  })
  .meta({ id: 'OAuthTokenRequest' });

export const oauthTokenSchema = z
  .object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() })
  .meta({ id: 'OAuthToken' });

export const oauthErrorSchema = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope', 'unsupported_response_type', 'server_error']),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError', description: 'RFC 6749 section 5.2' });

export const protectedResourceMetadataSchema = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string(),
  })
  .meta({ id: 'ProtectedResourceMetadata', description: 'RFC 9728' });

export const authorizationServerMetadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string().meta({ description: 'Present because MCP clients require it; it refuses every request (client credentials only)' }),
    token_endpoint: z.string(),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
  })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414' });

export const agentToolListSchema = z
  .object({
    transport: z.string().meta({ description: 'The MCP streamable HTTP endpoint' }),
    tools: z.array(z.object({ name: z.string(), description: z.string(), scope: scope, inputSchema: z.record(z.string(), z.unknown()) })),
  })
  .meta({ id: 'AgentToolList' });
