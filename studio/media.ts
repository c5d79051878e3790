import { authHeaders } from './api.js';

/**
 * Plays protected media in <video> elements through the service worker (sw.ts), which asks this
 * page for its credential header on each request. `mediaReady` resolves once the worker controls
 * the page.
 */

let ready: Promise<void> = Promise.resolve();

export function registerMediaWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.onmessage = (m: MessageEvent) => {
    if ((m.data as { type?: string } | null)?.type === 'weir-credential') m.ports[0]?.postMessage(authHeaders());
  };
  ready = navigator.serviceWorker.register('/studio/sw.js', { scope: '/studio/' }).then(async () => {
    if (navigator.serviceWorker.controller) return;
    await new Promise<void>((resolve) => navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }));
  });
}

export const mediaReady = () => ready;
