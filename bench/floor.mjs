/**
 * The machine's floor for the open-loop latency benchmarks: the same kind of client (keep-alive
 * agent, each request due at its scheduled time) against a child Node server that burns BURN_MS of
 * CPU per request (default 2.5, about a screening's) and answers; no threads, no disk. Prints p50 /
 * p95 / p99 / max at 50, 100 and 150 requests/s. Run: `BURN_MS=2.5 node bench/floor.mjs [seconds = 10]`.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';

if (process.argv[2] === 'server') {
  const burnMs = Number(process.env.BURN_MS ?? 2.5);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const t = performance.now();
      while (performance.now() - t < burnMs);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const seconds = Number(process.argv[2] ?? 10);
  const child = fork(new URL(import.meta.url).pathname, ['server']);
  const port = await new Promise((resolve) => child.once('message', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = () =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end('{"name":"x"}');
    });
  for (const rate of [50, 100, 150]) {
    const latencies = [];
    const inflight = [];
    const start = performance.now() + 50;
    for (let i = 0; i < rate * seconds; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      inflight.push(post().then(() => latencies.push(performance.now() - due)));
    }
    await Promise.all(inflight);
    latencies.sort((a, b) => a - b);
    const p = (q) => latencies[Math.floor(q * latencies.length)].toFixed(2);
    console.log(`${rate}/s: p50 ${p(0.5)} p95 ${p(0.95)} p99 ${p(0.99)} max ${latencies.at(-1).toFixed(1)} ms`);
  }
  child.kill();
}
