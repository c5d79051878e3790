import type { Request } from 'express';
import { z } from 'zod';
import type { Platform } from '../../infra/platform.js';
import { mayDecide } from '../../domain/webhooks/approval.js';
import { signSdkToken, verifySdkToken } from '../../domain/webhooks/sdk-token.js';
import { DecisionRefused, type Approval, type Approvals } from '../../pipelines/webhooks/approvals.js';
import type { FanOut } from '../../pipelines/webhooks/fan-out.js';
import type { SdkUsers } from '../../pipelines/webhooks/sdk-users.js';
import {
  approvalSchema,
  decideBody,
  decisionSchema,
  errorBodySchema,
  sdkSessionSchema,
  sdkUserBody,
  sdkUserSchema,
  signInStartBody,
  signInStarted,
  signInVerifyBody,
} from '../../schemas/http/webhooks.js';
import { HttpError, codeStartsLimited, forbidden, notFound, notImplemented, unauthorized } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { errors, orgOf, param, type Route } from './routes.js';

/** SDK sessions last this long. */
const SESSION_SECONDS = 3_600;

const conflictDoc = { 409: { description: 'Already decided, or expired', schema: errorBodySchema } };
const missingDoc = { 404: { description: 'No such approval in this organization', schema: errorBodySchema } };

async function decided(run: () => Promise<z.infer<typeof decisionSchema>>) {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DecisionRefused) throw err.reason === 'not_found' ? notFound(err.message) : new HttpError(409, 'conflict', err.message);
    throw err;
  }
}

const present = (a: Approval) => ({ run_id: a.run_id, step_id: a.step_id, approval_id: a.approval_id, approver_role: a.approver_role, expires_at: a.expires_at, status: a.status });

/** Approval routes (CONTRACTS.md 7) and the SDK's one-time-code sign-in. */
export function approvalRoutes(deps: { platform: Platform; approvals: Approvals; users: SdkUsers; fanOut: FanOut }): Route[] {
  const { platform, approvals, users, fanOut } = deps;
  const signingSecret = () => {
    const s = platform.config.BEARER_SIGNING_SECRET;
    if (!s) throw notImplemented('SDK sign-in needs BEARER_SIGNING_SECRET on the server');
    return s;
  };
  const session = (req: Request) => {
    const [scheme, token] = (req.get('authorization') ?? '').split(' ');
    const s = scheme === 'Bearer' && token ? verifySdkToken(signingSecret(), token, platform.clock.now()) : null;
    if (!s) throw unauthorized('missing, invalid or expired SDK session (Authorization: Bearer, from POST /sdk/auth/verify)');
    return s;
  };

  return [
    {
      method: 'get',
      path: '/approvals/:runId',
      summary: "The run's pending approval with its approver_role and expires_at (else its latest approval)",
      params: z.object({ runId: z.string() }),
      responses: { 200: { description: 'The approval', schema: approvalSchema }, ...errors, 404: { description: 'The run has no approval', schema: errorBodySchema } },
      handle: async (req, res) => {
        const a = await approvals.ofRun(orgOf(req), param(req, 'runId'));
        if (!a) throw notFound(`run ${param(req, 'runId')} has no approval in this organization`);
        res.json(present(a));
      },
    },
    {
      method: 'post',
      path: '/approvals/:runId/:stepId',
      summary: "Decide an approval from the integrator's backend; emits pbot_approval_decided",
      params: z.object({ runId: z.string(), stepId: z.string() }),
      body: { schema: decideBody, example: { approved: true, comment: 'checked the invoice' } },
      responses: { 200: { description: 'The decision as emitted', schema: decisionSchema }, ...errors, ...missingDoc, ...conflictDoc },
      handle: async (req, res) => {
        const body = parseOr400(decideBody, req.body, 'decision');
        const a = await approvals.one(orgOf(req), param(req, 'runId'), param(req, 'stepId'));
        if (!a) throw notFound(`no approval for run ${param(req, 'runId')} step ${param(req, 'stepId')} in this organization`);
        res.json(await decided(() => approvals.decide(fanOut, orgOf(req), a, { ...body, decided_by: { type: 'integrator', id: orgOf(req) } })));
      },
    },
    {
      method: 'put',
      path: '/sdk/users',
      summary: 'Declare an SDK user (by email) and the approver roles they hold',
      body: { schema: sdkUserBody, example: { email: 'approver@example.com', permissions: { approver_roles: ['finance'] } } },
      responses: { 200: { description: 'The user', schema: sdkUserSchema }, ...errors },
      handle: async (req, res) => {
        const body = parseOr400(sdkUserBody, req.body, 'SDK user');
        res.json(await users.put(orgOf(req), body.email, body.permissions.approver_roles));
      },
    },
    {
      method: 'post',
      path: '/sdk/auth/start',
      summary: 'Send a one-time sign-in code to an SDK user',
      description: 'Answers the same whether or not the address belongs to a user. A new code replaces the previous one; more than 5 starts per address (email) or 20 per client address in 10 minutes answer 429 naming the limit.',
      authenticated: false,
      body: { schema: signInStartBody, example: { org_id: 'org_a', email: 'approver@example.com' } },
      responses: { 202: { description: 'A code was sent if the user exists', schema: signInStarted }, 400: errors[400], 429: { description: 'Too many codes started for this email or from this address (`limit`: per_user or per_address)', schema: errorBodySchema } },
      handle: async (req, res) => {
        const body = parseOr400(signInStartBody, req.body, 'sign-in');
        const started = await users.startSignIn(body.org_id, body.email, req.ip ?? 'unknown');
        if ('refused' in started) throw codeStartsLimited(started.refused);
        res.status(202).json({ sent: true, ...(platform.config.OTP_DEV_ECHO && started.code ? { dev_code: started.code } : {}) });
      },
    },
    {
      method: 'post',
      path: '/sdk/auth/verify',
      summary: 'Exchange a one-time code for an SDK session token',
      authenticated: false,
      body: { schema: signInVerifyBody, example: { org_id: 'org_a', email: 'approver@example.com', code: '482913' } },
      responses: {
        200: { description: 'The session', schema: sdkSessionSchema },
        400: errors[400],
        401: { description: 'Wrong, used, replaced or expired code, or the 5 answers a code allows spent; the same for an unknown user', schema: errorBodySchema },
        501: { description: 'The server has no BEARER_SIGNING_SECRET', schema: errorBodySchema },
      },
      handle: async (req, res) => {
        const body = parseOr400(signInVerifyBody, req.body, 'sign-in');
        const secret = signingSecret();
        const user = await users.verifyCode(body.org_id, body.email, body.code);
        if (!user) throw unauthorized('wrong, used or expired code');
        const exp = Math.floor(platform.clock.now() / 1000) + SESSION_SECONDS;
        res.json({ access_token: signSdkToken(secret, { org: body.org_id, sub: user.id, exp }), token_type: 'Bearer', expires_in: SESSION_SECONDS, user });
      },
    },
    {
      method: 'post',
      path: '/sdk/tasks/:taskId/decide',
      summary: "Decide an approval (taskId is its approval_id) as a signed-in SDK user holding the approval's role",
      authenticated: false,
      params: z.object({ taskId: z.string() }),
      body: { schema: decideBody, example: { approved: true, comment: 'checked the invoice' } },
      responses: {
        200: { description: 'The decision as emitted', schema: decisionSchema },
        400: errors[400],
        401: { description: 'No valid SDK session', schema: errorBodySchema },
        403: { description: "The user's approver_roles do not include the approval's role", schema: errorBodySchema },
        ...missingDoc,
        ...conflictDoc,
      },
      handle: async (req, res) => {
        const s = session(req);
        const body = parseOr400(decideBody, req.body, 'decision');
        const user = await users.byId(s.org, s.sub);
        if (!user) throw unauthorized('the SDK user no longer exists');
        const a = await approvals.byId(s.org, param(req, 'taskId'));
        if (!a) throw notFound(`no task ${param(req, 'taskId')} in this organization`);
        if (!mayDecide(user.permissions.approver_roles, a.approver_role)) throw forbidden(`deciding this task needs the approver role ${a.approver_role ?? '(none named)'}`);
        res.json(await decided(() => approvals.decide(fanOut, s.org, a, { ...body, decided_by: { type: 'sdk_user', id: user.id } })));
      },
    },
  ];
}
