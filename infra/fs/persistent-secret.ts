import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createFileOnce } from './atomic-file.js';

/**
 * A random secret of `bytes` bytes kept in `file` (base64, owner-only), created on first use so
 * restarts over the same data directory keep it. Processes racing to create it all end up with
 * the one that was written first.
 */
export async function persistentSecret(file: string, bytes = 32): Promise<Buffer> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await createFileOnce(file, `${randomBytes(bytes).toString('base64')}\n`, 0o600);
  const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (secret.length < bytes) throw new Error(`${file} does not hold a secret of ${bytes} bytes`);
  return secret;
}
