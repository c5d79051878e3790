import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { Bus } from './bus/types.js';
import type { WindowStore } from './windows/types.js';
import type { Analytics } from './analytics/types.js';
import type { BlobStore } from './blobs/types.js';
import type { Codec } from './codec/types.js';
import type { Clock } from './clock.js';

/** Every adapter a service may use, built once per process from the configuration. */
export interface Platform {
  config: Config;
  log: Logger;
  metrics: Registry;
  clock: Clock;
  bus: Bus;
  codec: Codec;
  windows: WindowStore;
  analytics: Analytics;
  blobs: BlobStore;
}
