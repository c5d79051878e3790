import type { Request } from 'express';
import type { VideoScope } from '../../../domain/video/scopes.js';
import { sessionTokenSchema } from '../../../schemas/http/video-auth.js';
import { videoErrorSchema } from '../../../schemas/http/video.js';
import { forbidden } from '../../http/errors.js';
import type { VideoRoute } from '../route.js';
import { presentToken, type TokenMinter } from './mint.js';

/**
 * Same-origin demo auth: the demo studio page, served by this API, gets a short-lived token for the
 * demo organization without holding a key, when the request comes from that page itself: its
 * Origin is on VIDEO_DEMO_ORIGINS and is this server's own origin (and a browser's Sec-Fetch-Site,
 * when sent, says same-origin). Anything else is refused. Origin is a browser guarantee, not a
 * secret, so this is for a public demo organization only, never for server-to-server use.
 */

export const DEMO_SCOPES: VideoScope[] = ['render:read', 'render:write', 'templates:read'];
const DEMO_TTL_SECONDS = 900;

function sameAllowedOrigin(req: Request, allowlist: string[]): string | undefined {
  const origin = req.get('origin');
  if (!origin) return 'the request has no Origin header';
  if (!allowlist.includes(origin)) return `origin ${origin} is not on VIDEO_DEMO_ORIGINS`;
  if (origin !== `${req.protocol}://${req.get('host')}`) return `origin ${origin} is not this server's own origin`;
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return `Sec-Fetch-Site is ${site}, not same-origin`;
  return undefined;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weir video demo</title></head>
<body>
<h1>Weir video demo</h1>
<textarea id="src" rows="12" cols="60">film "Demo"
mood confident
scene "Hello" 3s
  title "Hello from the demo"</textarea>
<p><button id="go">Compile</button></p>
<pre id="out"></pre>
<script>
document.getElementById('go').onclick = async () => {
  const out = document.getElementById('out');
  const s = await fetch('/demo/session', { method: 'POST' });
  if (!s.ok) { out.textContent = 'demo session refused: ' + (await s.text()); return; }
  const { accessToken } = await s.json();
  const r = await fetch('/api/compile', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + accessToken }, body: JSON.stringify({ source: document.getElementById('src').value }) });
  out.textContent = JSON.stringify(await r.json(), null, 2);
};
</script>
</body></html>`;

export function demoRoutes(deps: { minter: TokenMinter; origins: string[]; orgId: string }): VideoRoute[] {
  return [
    {
      method: 'get',
      path: '/demo',
      summary: 'The demo studio page (HTML)',
      authenticated: false,
      responses: { 200: { description: 'A page that compiles scripts with a same-origin demo token' } },
      handle: (_req, res) => void res.type('html').setHeader('Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline' 'self'").send(PAGE),
    },
    {
      method: 'post',
      path: '/demo/session',
      summary: 'A demo bearer token for the demo studio page, from an allowed same origin only',
      description: `Answers a ${DEMO_TTL_SECONDS}-second token for VIDEO_DEMO_ORG with ${DEMO_SCOPES.join(', ')}, when Origin is on VIDEO_DEMO_ORIGINS and is this server's own origin; 403 otherwise; 501 without BEARER_SIGNING_SECRET.`,
      authenticated: false,
      responses: {
        201: { description: 'The demo token', schema: sessionTokenSchema },
        403: { description: 'Not an allowed same-origin request', schema: videoErrorSchema },
        501: { description: 'No BEARER_SIGNING_SECRET configured', schema: videoErrorSchema },
      },
      handle: async (req, res) => {
        const refused = sameAllowedOrigin(req, deps.origins);
        if (refused) throw forbidden(`demo auth refused: ${refused}`);
        const caller = { orgId: deps.orgId, plan: 'starter' as const, source: 'bearer' as const, principalId: 'demo', scopes: DEMO_SCOPES };
        const { token, claims } = await deps.minter.mint(caller, undefined, DEMO_TTL_SECONDS);
        res.status(201).json(presentToken(token, claims));
      },
    },
  ];
}
