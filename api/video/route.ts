import type { Request, Response } from 'express';
import type { RouteDoc } from '../http/openapi.js';
import type { VideoScope } from '../../domain/video/scopes.js';

/**
 * One route of the video service: its OpenAPI description, the scope a credential needs for it
 * (none: any authenticated caller), and its handler. Each area (compile and moods, render, templates,
 * assets, principals) lists its routes in a module of its own; `routes.ts` mounts them all.
 */
export type VideoRoute = RouteDoc & {
  scope?: VideoScope;
  handle: (req: Request, res: Response) => void | Promise<void>;
};
