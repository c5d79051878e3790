import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local publisher: answers each path of `files` with its text as it is at the time of the
 * request (tests may change it), and 404 otherwise. Stands in for the internet the downloaders use.
 */
export async function serveFiles(files: Record<string, string>): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    res.writeHead(body ? 200 : 404).end(body ?? 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
