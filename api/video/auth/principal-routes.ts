import { z } from 'zod';
import { principalCreatedSchema, principalCreateSchema, principalListSchema, principalSchema, sessionTokenRequestSchema, sessionTokenSchema } from '../../../schemas/http/video-auth.js';
import { videoErrorSchema } from '../../../schemas/http/video.js';
import { forbidden, notFound } from '../../http/errors.js';
import { parseOr400 } from '../../http/validate.js';
import type { VideoRoute } from '../route.js';
import { presentToken, type TokenMinter } from './mint.js';
import type { PrincipalStore } from './principal-store.js';
import { scopesOf } from './resolver.js';

const error = (description: string) => ({ description, schema: videoErrorSchema });
const unauthorized = { 401: error('Missing, unknown or disabled x-api-key, or a bad bearer token') };
const bearerRefused = { 403: error('A bearer token may not manage principals, or the requested scopes exceed the caller\'s') };

/** Principal management (API keys only) and session tokens. */
export function principalRoutes(deps: { principals: PrincipalStore; minter: TokenMinter }): VideoRoute[] {
  const { principals, minter } = deps;
  return [
    {
      method: 'get',
      path: '/api/principals',
      summary: "The organization's database principals, disabled ones too",
      apiKeyOnly: true,
      responses: { 200: { description: 'Principals, never their keys', schema: principalListSchema }, ...unauthorized, ...bearerRefused },
      handle: async (req, res) => void res.json({ principals: await principals.list(req.principal!.orgId) }),
    },
    {
      method: 'post',
      path: '/api/principals',
      summary: 'Create an API principal; its key is answered this once',
      description: "The scopes must be a subset of the caller's. Only the SHA-256 digest of the key is stored.",
      apiKeyOnly: true,
      body: { schema: principalCreateSchema },
      responses: { 201: { description: 'Created', schema: principalCreatedSchema }, 400: error('A bad body'), ...unauthorized, ...bearerRefused },
      handle: async (req, res) => {
        const body = parseOr400(principalCreateSchema, req.body, 'principal');
        const caller = req.principal!;
        const extra = body.scopes.filter((s) => !scopesOf(caller).includes(s));
        if (extra.length > 0) throw forbidden(`a principal cannot be given scopes its creator lacks: ${extra.join(', ')}`);
        res.status(201).json(await principals.create(caller.orgId, body, caller.principalId!));
      },
    },
    {
      method: 'delete',
      path: '/api/principals/:id',
      summary: 'Disable a principal (it is kept, with who disabled it and when)',
      apiKeyOnly: true,
      params: z.object({ id: z.string() }),
      responses: { 200: { description: 'The disabled principal', schema: principalSchema }, ...unauthorized, ...bearerRefused, 404: error('No principal of that id in the organization') },
      handle: async (req, res) => {
        const caller = req.principal!;
        const p = await principals.disable(caller.orgId, String(req.params.id), caller.principalId!);
        if (!p) throw notFound(`principal ${String(req.params.id)} does not exist in this organization`);
        res.json(p);
      },
    },
    {
      method: 'post',
      path: '/api/session-token',
      summary: 'Mint a short-lived bearer token',
      description: "Scopes a subset of the caller's (default: all of them). A bearer token may mint a shorter-lived or narrower one. 501 without BEARER_SIGNING_SECRET.",
      body: { schema: sessionTokenRequestSchema },
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
