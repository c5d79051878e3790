import { z } from 'zod';
import type { VideoScope } from '../../../domain/video/scopes.js';
import {
  principalCreatedSchema,
  principalCreateSchema,
  principalListSchema,
  principalPatchSchema,
  principalSchema,
  sessionTokenRequestSchema,
  sessionTokenSchema,
  type VideoPrincipal,
} from '../../../schemas/http/video-auth.js';
import type { Principal } from '../../http/auth.js';
import { videoErrorSchema } from '../../../schemas/http/video.js';
import { forbidden, notFound } from '../../http/errors.js';
import { parseOr400 } from '../../http/validate.js';
import type { VideoRoute } from '../route.js';
import { presentToken, type TokenMinter } from './mint.js';
import type { PrincipalStore } from '../../../pipelines/video/principal-store.js';
import { scopesOf } from './resolver.js';

const error = (description: string) => ({ description, schema: videoErrorSchema });
const unauthorized = { 401: error('Missing, unknown or disabled x-api-key, or a bad bearer token') };
const refused = { 403: error("A bearer token may not manage principals, the credential lacks principals:admin, or the principal holds scopes the caller lacks") };
const notHere = { 404: error('No principal of that id in the organization') };
const byId = z.object({ id: z.string().meta({ description: 'The principal id (prn_…)' }) });

/** 403 unless the caller holds every scope of `scopes`: no principal manages one more powerful than itself. */
function mustHold(caller: Principal, scopes: readonly VideoScope[], doing: string): void {
  const extra = scopes.filter((s) => !scopesOf(caller).includes(s));
  if (extra.length > 0) throw forbidden(`${doing} needs the caller to hold ${extra.join(', ')}`);
}

/** Principal management (API keys with principals:admin only) and session tokens. */
export function principalRoutes(deps: { principals: PrincipalStore; minter: TokenMinter }): VideoRoute[] {
  const { principals, minter } = deps;
  const existing = async (orgId: string, id: string): Promise<VideoPrincipal> => {
    const p = await principals.get(orgId, id);
    if (!p) throw notFound(`principal ${id} does not exist in this organization`);
    return p;
  };
  return [
    {
      method: 'get',
      path: '/api/principals',
      summary: "The organization's database principals, disabled ones too",
      scope: 'principals:admin',
      apiKeyOnly: true,
      responses: { 200: { description: 'Principals, never their keys', schema: principalListSchema }, ...unauthorized, ...refused },
      handle: async (req, res) => void res.json({ principals: await principals.list(req.principal!.orgId) }),
    },
    {
      method: 'post',
      path: '/api/principals',
      summary: 'Create an API principal; its key is answered this once',
      description: "The scopes must be a subset of the caller's. Only the SHA-256 digest of the key is stored.",
      scope: 'principals:admin',
      apiKeyOnly: true,
      body: { schema: principalCreateSchema },
      responses: { 201: { description: 'Created', schema: principalCreatedSchema }, 400: error('A bad body'), ...unauthorized, ...refused },
      handle: async (req, res) => {
        const body = parseOr400(principalCreateSchema, req.body, 'principal');
        const caller = req.principal!;
        mustHold(caller, body.scopes, 'creating this principal');
        res.status(201).json(await principals.create(caller.orgId, body, caller.principalId!));
      },
    },
    {
      method: 'get',
      path: '/api/principals/:id',
      summary: 'One principal, never its key',
      scope: 'principals:admin',
      apiKeyOnly: true,
      params: byId,
      responses: { 200: { description: 'The principal', schema: principalSchema }, ...unauthorized, ...refused, ...notHere },
      handle: async (req, res) => void res.json(await existing(req.principal!.orgId, String(req.params.id))),
    },
    {
      method: 'patch',
      path: '/api/principals/:id',
      summary: 'Rename a principal or change its scopes',
      description:
        "Takes what GET answers back unchanged: only name and scopes change, the other fields are read-only and ignored (disable with DELETE). The caller must hold the principal's scopes, old and new.",
      scope: 'principals:admin',
      apiKeyOnly: true,
      params: byId,
      body: { schema: principalPatchSchema },
      responses: { 200: { description: 'The principal as stored', schema: principalSchema }, 400: error('A bad body'), ...unauthorized, ...refused, ...notHere },
      handle: async (req, res) => {
        const body = parseOr400(principalPatchSchema, req.body, 'principal');
        const caller = req.principal!;
        const current = await existing(caller.orgId, String(req.params.id));
        mustHold(caller, [...current.scopes, ...(body.scopes ?? [])], `changing principal ${current.id}`);
        res.json(await principals.update(caller.orgId, current.id, { name: body.name ?? current.name, scopes: body.scopes ?? current.scopes }, caller.principalId!));
      },
    },
    {
      method: 'delete',
      path: '/api/principals/:id',
      summary: 'Disable a principal (it is kept, with who disabled it and when); its tokens are refused within a second',
      scope: 'principals:admin',
      apiKeyOnly: true,
      params: byId,
      responses: { 200: { description: 'The disabled principal', schema: principalSchema }, ...unauthorized, ...refused, ...notHere },
      handle: async (req, res) => {
        const caller = req.principal!;
        const target = await existing(caller.orgId, String(req.params.id));
        mustHold(caller, target.scopes, `disabling principal ${target.id}`);
        res.json(await principals.disable(caller.orgId, target.id, caller.principalId!));
      },
    },
    {
      method: 'post',
      path: '/api/session-token',
      summary: 'Mint a short-lived bearer token',
      description:
        "Scopes a subset of the caller's (default: all of them). A bearer token may mint a narrower one that expires no later than itself (a longer ttlSeconds is cut to its expiry). The token is refused once its principal is disabled. 501 without BEARER_SIGNING_SECRET.",
      body: { schema: sessionTokenRequestSchema, example: { ttlSeconds: 900, scopes: ['render:read', 'render:write'] } },
      responses: {
        201: { description: 'The token', schema: sessionTokenSchema },
        400: error('ttlSeconds out of bounds or an unknown scope'),
        ...unauthorized,
        403: error("The requested scopes exceed the caller's"),
        501: error('No BEARER_SIGNING_SECRET configured'),
      },
      handle: async (req, res) => {
        const body = parseOr400(sessionTokenRequestSchema, req.body, 'session token request');
        const { token, claims } = await minter.mint(req.principal!, body.scopes, body.ttlSeconds);
        res.status(201).json(presentToken(token, claims));
      },
    },
  ];
}
