import express, { type RequestHandler } from 'express';

/**
 * JSON body parsing for one router. Malformed JSON and oversized bodies become errors that the
 * router's own error presenter answers in its service's style (see present-error.ts).
 */
export function jsonBody(limit: string): RequestHandler {
  return express.json({ limit, strict: false, type: ['application/json', 'application/*+json'] });
}
