import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A local webhook receiver: Debian's nginx-light answering 204 to everything, on a free port of
 * 127.0.0.1, with its own configuration, logs and pid in a temporary folder. Each request it
 * answered is one two-byte line of its access log, so `received()` is the log's size halved.
 */
export interface Receiver {
  url: string;
  received(): Promise<number>;
  /** Resolves once at least `n` requests were answered, and answers when (performance.now()). */
  until(n: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const port = (s.address() as net.AddressInfo).port;
  s.close();
  await once(s, 'close');
  return port;
}

export async function startNginx(): Promise<Receiver> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'weir-peers-nginx-'));
  const port = await freePort();
  const log = path.join(dir, 'access.log');
  const conf = `
daemon off;
worker_processes 1;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  log_format dot '.';
  access_log ${log} dot;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:${port};
    location / { return 204; }
  }
}
`;
  await writeFile(path.join(dir, 'nginx.conf'), conf);
  await writeFile(log, '');
  const child = spawn('/usr/sbin/nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode} (see ${dir}/error.log)`);
    if ((await fetch(url, { method: 'POST', body: '{}' }).then((r) => r.status, () => 0)) === 204) break;
    if (i > 100) throw new Error('nginx did not answer within 10 s');
    await sleep(100);
  }
  const received = async () => Math.floor((await stat(log)).size / 2);
  return {
    url,
    received,
    async until(n, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while ((await received()) < n) {
        if (performance.now() > deadline) throw new Error(`the receiver had ${await received()} of ${n} requests after ${timeoutMs / 1000} s`);
        await sleep(10);
      }
      return performance.now();
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGQUIT');
      await exited;
    },
  };
}
