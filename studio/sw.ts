/**
 * The studio's service worker: a <video> element cannot send a credential header, so requests for
 * rendered videos (GET /api/video/{id}, with the element's Range headers) are sent again with the
 * header of the page that made them, asked of that page each time (the worker keeps no secret: it
 * may be stopped between requests, and the credential lives in the page's session storage).
 */

interface Client {
  postMessage(message: unknown, transfer: Transferable[]): void;
}
interface FetchEvent extends Event {
  request: Request;
  clientId: string;
  respondWith(r: Promise<Response>): void;
}
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
const worker = self as unknown as {
  addEventListener(type: 'install' | 'activate', f: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', f: (e: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void>; get(id: string): Promise<Client | undefined> };
  location: Location;
};

const PROTECTED_MEDIA = '/api/video/';
const ASK_TIMEOUT_MS = 3000;

worker.addEventListener('install', (e) => e.waitUntil(worker.skipWaiting()));
worker.addEventListener('activate', (e) => e.waitUntil(worker.clients.claim()));

async function credentialOf(clientId: string): Promise<Record<string, string>> {
  const client = clientId ? await worker.clients.get(clientId) : undefined;
  if (!client) return {};
  const channel = new MessageChannel();
  const answer = new Promise<Record<string, string>>((resolve) => {
    const timer = setTimeout(() => resolve({}), ASK_TIMEOUT_MS);
    channel.port1.onmessage = (m) => {
      clearTimeout(timer);
      resolve((m.data ?? {}) as Record<string, string>);
    };
  });
  client.postMessage({ type: 'weir-credential' }, [channel.port2]);
  return answer;
}

worker.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (url.origin !== worker.location.origin || !url.pathname.startsWith(PROTECTED_MEDIA) || e.request.method !== 'GET') return;
  e.respondWith(
    (async () => {
      const headers = new Headers(e.request.headers);
      for (const [k, v] of Object.entries(await credentialOf(e.clientId))) headers.set(k, v);
      // A media element's request is no-cors, which would drop the header: ask again as same-origin.
      return fetch(new Request(url, { method: 'GET', headers, mode: 'same-origin', credentials: 'omit', cache: 'no-store' }));
    })(),
  );
});
