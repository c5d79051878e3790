/**
 * Preloaded into a server under test (`--import`): times every request inside the server, from
 * its `request` event (headers parsed) to its response's `finish` (the last bytes handed to the
 * kernel), through node:http's diagnostics channels, so a Weir process and a bare floor server are
 * measured by the same instrument. Requests are grouped by their `x-peers-series` header. On the
 * IPC message {type: 'peers-server-times'} the process answers the durations (ms) gathered since
 * the last such message, by series, and forgets them.
 */
import { subscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const started = new WeakMap();
let times = new Map();

subscribe('http.server.request.start', ({ request }) => started.set(request, performance.now()));
subscribe('http.server.response.finish', ({ request }) => {
  const t = started.get(request);
  if (t === undefined) return;
  const series = String(request.headers['x-peers-series'] ?? 'other');
  const list = times.get(series);
  if (list) list.push(performance.now() - t);
  else times.set(series, [performance.now() - t]);
});

if (process.send) {
  process.on('message', (m) => {
    if (m?.type !== 'peers-server-times') return;
    process.send({ type: 'peers-server-times', times: Object.fromEntries(times) });
    times = new Map();
  });
}
