import type { Router } from 'express';
import type { Platform } from '../infra/platform.js';
import type { TopicSpec } from '../infra/bus/types.js';
import type { Migration } from '../infra/analytics/types.js';
import type { KeyRing } from '../api/http/auth.js';
import type { LaneRoute } from '../api/http/lane.js';
import type { PartHealth } from '../infra/health.js';
import type { Stoppable } from '../infra/lifecycle.js';

/** Process roles (CONTRACTS.md section 1): each pipeline and worker pool scales on its own. */
export const ROLES = ['all', 'api', 'counters', 'transactions', 'screening', 'risk', 'render', 'preprocess', 'webhooks'] as const;
export type Role = (typeof ROLES)[number];
export type WorkerRole = Exclude<Role, 'all' | 'api'>;

export interface ServiceContext {
  platform: Platform;
  keys: KeyRing;
  /** The role of this process: a service loads what only its HTTP side needs when it serves HTTP. */
  role: Role;
}

/** Whether a process of `role` serves HTTP. */
export const servesHttp = (role: Role): boolean => role === 'all' || role === 'api';

/** What a running service offers the process: an HTTP router and/or background workers. */
export interface ServiceInstance {
  /** Mounted at `/` when the process serves HTTP (roles `api` and `all`). */
  router?: Router;
  /** Hot routes of the router answered ahead of Express in their plain case (api/http/lane.ts). */
  lanes?: LaneRoute[];
  /** Path prefixes this service rate-limits itself (per plan); the edge-wide limiter leaves them alone. */
  ownRateLimits?: string[];
  /** Consumers, worker pools and schedulers, each started only in its role (and in `all`). */
  workers?: { role: WorkerRole; name: string; start(): Promise<Stoppable> }[];
  /** Parts of the service /health reports, by name (e.g. `risk_lists`). */
  health?: Record<string, () => PartHealth>;
  /** Releases what `create` acquired (caches, timers), after workers stopped. */
  close?(): Promise<void>;
}

/** One of Weir's services: declares its topics and tables, and builds its instance from the platform. */
export interface ServiceModule {
  name: string;
  topics: TopicSpec[];
  migrations: Migration[];
  create(ctx: ServiceContext): Promise<ServiceInstance>;
}
