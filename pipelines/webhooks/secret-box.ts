import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Webhook signing secrets must be usable (an HMAC key cannot be a one-way hash), so they are stored
 * sealed with AES-256-GCM. The key comes from WEBHOOK_SECRETS_KEY or, on embedded defaults, a random
 * key file created under DATA_DIR; processes that share a ClickHouse server must share the key.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('sealed secret has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** The sealing key: SHA-256 of the configured value, else the key file under `dataDir` (created once). */
export async function loadSecretBox(configured: string | undefined, dataDir: string): Promise<SecretBox> {
  if (configured) return secretBox(hash('sha256', configured, 'buffer'));
  const file = path.join(dataDir, 'webhooks', 'secrets.key');
  try {
    return secretBox(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  // 'wx': two processes starting at once must not overwrite each other's key.
  await writeFile(file, key.toString('base64'), { flag: 'wx', mode: 0o600 }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return secretBox(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64'));
}
