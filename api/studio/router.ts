import express, { type Router } from 'express';

/**
 * Serves the studio (a single page, its bundle and its service worker) at `/studio/`. The page
 * calls the video API of the same origin with the credential its user signs in with; nothing is
 * fetched from elsewhere, which the Content-Security-Policy holds it to.
 */

export const STUDIO_PATH = '/studio';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // CodeMirror mounts its theme as style elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function studioRouter(dir: string): Router {
  // Strict: /studio and /studio/ are two paths here, one redirecting to the other.
  const r = express.Router({ strict: true });
  // The service worker's scope is /studio/: the page lives inside it.
  r.get(STUDIO_PATH, (_req, res) => res.redirect(308, `${STUDIO_PATH}/`));
  r.use(
    STUDIO_PATH,
    express.static(dir, {
      index: 'index.html',
      fallthrough: true,
      setHeaders: (res, file) => {
        res.setHeader('Content-Security-Policy', CSP);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        // The bundle changes with each build: revalidate rather than cache blindly.
        res.setHeader('Cache-Control', 'no-cache');
        if (file.endsWith('sw.js')) res.setHeader('Service-Worker-Allowed', `${STUDIO_PATH}/`);
      },
    }),
  );
  return r;
}
