import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * How a running process tells `npm run sql` where its analytics interface listens and as whom to
 * sign in, so a second terminal needs none of the server's environment. The file holds the first
 * `ANALYTICS_USERS` entry's password: it is written owner-only into `DATA_DIR`, which already holds
 * the process's signing keys, so it adds no reader who could not read those.
 */
export interface Discovery {
  url: string;
  user: string;
  password: string;
}

export const discoveryPath = (dataDir: string) => path.join(dataDir, 'analytics-interface.json');

export async function writeDiscovery(dataDir: string, d: Discovery): Promise<void> {
  const file = discoveryPath(dataDir);
  // Written aside and renamed, so a CLI starting meanwhile never reads half a file.
  await writeFile(`${file}.tmp`, JSON.stringify(d), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

export async function removeDiscovery(dataDir: string): Promise<void> {
  await rm(discoveryPath(dataDir), { force: true });
}

/** The running process's interface, or undefined when none wrote one (or the file is unreadable). */
export function readDiscovery(dataDir: string): Discovery | undefined {
  try {
    const d = JSON.parse(readFileSync(discoveryPath(dataDir), 'utf8')) as Partial<Discovery>;
    return typeof d.url === 'string' && typeof d.user === 'string' && typeof d.password === 'string' ? (d as Discovery) : undefined;
  } catch {
    return undefined;
  }
}
