import { createHash, randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { EMPTY_VERSION, type Snapshot } from '../../domain/screening/snapshot.js';
import { screen, searchRelationships, type RelationshipSettings, type Screening, type Thresholds } from '../../domain/screening/screen.js';
import { primaryName } from '../../domain/screening/entity.js';
import type { Clock } from '../../infra/clock.js';
import type { SnapshotStore } from '../../infra/sanctions/store.js';
import type { ScreeningRecord } from '../../pipelines/screening/record.js';
import { authenticate, type KeyRing } from '../http/auth.js';
import { badRequest, HttpError, notFound } from '../http/errors.js';
import { presentError } from '../http/present-error.js';
import { serviceRouter } from '../http/service-router.js';
import { parseOr400 } from '../http/validate.js';
import {
  agentLookupBatchBody,
  agentLookupBody,
  relationshipConfigBody,
  relationshipSearchBody,
  screenBatchBody,
  screenBody,
  type AgentLookupBody,
} from '../../schemas/http/screening.js';
import type { OrgConfigStore } from '../../pipelines/screening/config-store.js';
import { planRateLimit } from './rate-limit.js';
import { requestWindows } from '../http/shared-windows.js';
import type { WindowStore } from '../../infra/windows/types.js';
import type { Logger } from 'pino';
import { IDEMPOTENCY_WINDOW_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH, requestDigest, type IdempotencyStore } from '../../pipelines/screening/idempotency.js';
import { REPLAYED_HEADER } from '../http/replay.js';
import { OPENAPI_PATH, screeningDocument } from './openapi.js';
import {
  citation,
  markdownProfile,
  presentEntityRelationships,
  presentExplanation,
  presentMatch,
  presentRelated,
  presentRelationshipMatch,
  relationshipStats,
  relationshipSummary,
} from './present.js';

export interface ScreeningApiDeps {
  keys: KeyRing;
  clock: Clock;
  bodyLimit: string;
  lists: SnapshotStore;
  configs: OrgConfigStore;
  thresholds: Thresholds;
  /** Where keys' request counts are shared with the other API processes (the plan limits). */
  windows?: WindowStore;
  log?: Logger;
  /** Resolves once the records are durably in the log (topic `screenings`). */
  audit(records: ScreeningRecord[]): Promise<void>;
  idempotency: IdempotencyStore;
}

const PREFIX = '/v1/aml';
const elapsed = (started: number) => Math.round(performance.now() - started);

export function screeningRouter(deps: ScreeningApiDeps): Router {
  const router = Router();
  const document = screeningDocument();
  // Before the plan limit: reading the document needs no key and costs no allowance.
  router.get(OPENAPI_PATH, (_req, res) => void res.json(document));
  // Outside the service router so that even a malformed body's 400 carries the X-RateLimit headers.
  router.use(PREFIX, planRateLimit(deps.clock, (digest) => deps.keys.verifyDigest(digest)?.plan ?? null, requestWindows({ store: deps.windows, scope: 'rate:screening', log: deps.log })), presentError('standard'));
  router.use(
    serviceRouter({ style: 'standard', bodyLimit: deps.bodyLimit, prefixes: [PREFIX], keys: deps.keys }, (r) => {
      r.use(authenticate(deps.keys, 'x-api-key'));
      routes(r, deps);
    }),
  );
  return router;
}

/** The snapshot in service; during the first load a request waits for it, after a failed first load it is a 503. */
async function snapshotOf(lists: SnapshotStore): Promise<Snapshot> {
  if (lists.current.status === 'loading') await lists.reload();
  const state = lists.current;
  if (state.status === 'ready') return state.snapshot;
  throw new HttpError(503, 'lists_unavailable', `no sanctions lists are in service: ${state.status === 'failed' ? state.error : 'still loading'}`);
}

/** A UUID-shaped id from a digest: a retried screening that is screened again keeps its audit id. */
function auditId(orgId: string, key: string, request: string, index: number): string {
  const h = createHash('sha256').update(`${orgId}\0${key}\0${request}\0${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

interface Idempotent {
  /** Audit id of the screening at `index` of the request. */
  idOf(index: number): string;
  /** Sends the answer, remembered under the key first. Call after the audit is durable. */
  answer(body: object): Promise<void>;
}

/**
 * Idempotency-Key, as Stripe does it: the first answer to a key is kept for
 * IDEMPOTENCY_WINDOW_HOURS; the same key with the same request (route and body) gets that answer
 * again (with `Idempotent-Replayed: true`) and is not screened again (answers undefined: sent);
 * the same key with another request is a 409 naming the key. Audit ids are random without a key,
 * else derived from the key and the request, so a single screen and item 0 of a batch, or two
 * bodies under one key, never share one, and a retry after a crash before the record was kept is
 * screened again under the same ids.
 */
async function idempotent(deps: ScreeningApiDeps, req: Request, res: Response, route: string, body: unknown): Promise<Idempotent | undefined> {
  const key = req.get('idempotency-key');
  if (key === undefined) return { idOf: () => randomUUID(), answer: async (b) => void res.json(b) };
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw badRequest(`Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  const orgId = req.principal!.orgId;
  const request = requestDigest(route, body);
  const stored = await deps.idempotency.find(orgId, key);
  if (stored && stored.requestSha256 !== request) {
    throw new HttpError(409, 'idempotency_key_reused', `Idempotency-Key ${JSON.stringify(key)} was used in the last ${IDEMPOTENCY_WINDOW_HOURS} hours for a different request (another body or endpoint); send a new key for a new request`);
  }
  if (stored) {
    res.set(REPLAYED_HEADER, 'true').type('application/json').send(stored.response);
    return undefined;
  }
  return {
    idOf: (index) => auditId(orgId, key, request, index),
    async answer(b) {
      const response = JSON.stringify(b);
      await deps.idempotency.save(orgId, key, { requestSha256: request, response });
      res.type('application/json').send(response);
    },
  };
}

function routes(r: Router, deps: ScreeningApiDeps): void {
  const org = (req: Request) => req.principal!.orgId;

  const record = (req: Request, id: string, name: string, s: Screening, version: string, payload: unknown): ScreeningRecord => ({
    audit_id: id,
    org_id: org(req),
    name,
    decision: s.decision,
    score: s.match?.score ?? s.relationship?.score ?? null,
    entity_id: s.match?.entity.id ?? s.relationship?.related.id ?? null,
    list_version: version,
    created_at: new Date(deps.clock.now()).toISOString(),
    payload,
  });

  r.post(`${PREFIX}/screen`, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(screenBody, req.body);
    const once = await idempotent(deps, req, res, 'screen', body);
    if (!once) return;
    const [snapshot, settings] = await Promise.all([snapshotOf(deps.lists), deps.configs.get(org(req))]);
    const s = screen(snapshot, snapshot.index.prepare(body.name), body, deps.thresholds, settings);
    const id = once.idOf(0);
    const response = {
      decision: s.decision,
      audit_id: id,
      match: presentMatch(s.match),
      weak_alias_match: presentMatch(s.weakAlias),
      relationship_match: presentRelationshipMatch(s.relationship, settings.decision_escalation),
      processing_time_ms: elapsed(started),
      list_version: snapshot.version,
    };
    // The audit keeps the time of the screening itself; the answer reports it with the durable write.
    const screened = performance.now();
    await deps.audit([record(req, id, body.name, s, snapshot.version, { request: body, response })]);
    response.processing_time_ms = elapsed(started);
    res.set('Server-Timing', `screen;dur=${(screened - started).toFixed(2)}, audit;dur=${(performance.now() - screened).toFixed(2)}`);
    await once.answer(response);
  });

  r.post(`${PREFIX}/screen/batch`, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(screenBatchBody, req.body);
    const once = await idempotent(deps, req, res, 'screen/batch', body);
    if (!once) return;
    const [snapshot, settings] = await Promise.all([snapshotOf(deps.lists), deps.configs.get(org(req))]);
    const records: ScreeningRecord[] = [];
    const results = body.names.map((name, i) => {
      const s = screen(snapshot, snapshot.index.prepare(name), { name }, deps.thresholds, settings);
      const id = once.idOf(i);
      const result = {
        name,
        decision: s.decision,
        match: presentMatch(s.match),
        weak_alias_match: presentMatch(s.weakAlias),
        relationship_match: presentRelationshipMatch(s.relationship, settings.decision_escalation),
        audit_id: id,
      };
      records.push(record(req, id, name, s, snapshot.version, { request: { name, batch: true }, response: result }));
      return result;
    });
    await deps.audit(records);
    await once.answer({ results, count: results.length, list_version: snapshot.version, processing_time_ms: elapsed(started) });
  });

  const lookup = (snapshot: Snapshot, settings: RelationshipSettings, body: AgentLookupBody) => {
    const s = screen(snapshot, snapshot.index.prepare(body.query), { name: body.query }, deps.thresholds, settings);
    const citations: string[] = [];
    let direct = null;
    if (s.match) {
      const self = snapshot.byId.get(s.match.entity.id)!;
      const edges = body.include_related
        ? [...snapshot.graph.outbound(self), ...(body.include_reverse_relationships ? snapshot.graph.inbound(self) : [])].slice(0, body.max_results)
        : [];
      const related = presentRelated(snapshot, self, edges);
      citations.push(citation(s.match.entity, snapshot.version));
      for (const rel of related) if (rel.id) citations.push(citation(snapshot.entities[snapshot.byId.get(rel.id)!]!, snapshot.version));
      direct = { self, related };
    }
    const relationshipMatch =
      !direct && s.relationship
        ? {
            query_name: body.query,
            matched_name: s.relationship.matchedName,
            match_score: Math.round(s.relationship.score * 1000) / 1000,
            sanctioned_entity: {
              entity_id: s.relationship.related.id,
              entity_name: primaryName(s.relationship.related),
              source: s.relationship.related.source,
              markdown_profile:
                body.format === 'markdown' ? markdownProfile(snapshot, snapshot.byId.get(s.relationship.related.id)!, []) : null,
            },
            relationship: { type: s.relationship.edge.type, detail: s.relationship.edge.detail, extraction_confidence: s.relationship.edge.confidence },
          }
        : null;
    if (relationshipMatch) citations.push(citation(s.relationship!.related, snapshot.version));
    const m = s.match;
    return {
      match: Boolean(m || relationshipMatch),
      direct_match: Boolean(m),
      entity_id: m?.entity.id ?? relationshipMatch?.sanctioned_entity.entity_id ?? null,
      confidence: m ? Math.round(m.score * 1000) / 1000 : (relationshipMatch?.match_score ?? null),
      entity: m ? { id: m.entity.id, name: primaryName(m.entity), source: m.entity.source, list_type: m.entity.listType } : null,
      explanation: m?.explanation ? presentExplanation(m.explanation) : null,
      markdown_profile: direct && body.format === 'markdown' ? markdownProfile(snapshot, direct.self, direct.related, m?.explanation) : null,
      related_entities: direct?.related ?? [],
      relationship_summary: direct ? relationshipSummary(m!.entity, direct.related) : null,
      relationship_match: relationshipMatch,
      citations,
      list_version: snapshot.version,
    };
  };

  r.post(`${PREFIX}/agent/lookup`, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(agentLookupBody, req.body);
    const [snapshot, settings] = await Promise.all([snapshotOf(deps.lists), deps.configs.get(org(req))]);
    res.json({ ...lookup(snapshot, settings, body), processing_time_ms: elapsed(started) });
  });

  r.post(`${PREFIX}/agent/lookup/batch`, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(agentLookupBatchBody, req.body);
    const [snapshot, settings] = await Promise.all([snapshotOf(deps.lists), deps.configs.get(org(req))]);
    const results = body.queries.map((query) => {
      const l = lookup(snapshot, settings, agentLookupBody.parse({ query, format: 'json', include_related: false }));
      return {
        query,
        match: l.match,
        entity_id: l.entity_id,
        confidence: l.confidence,
        relationship_match: l.relationship_match !== null,
        related_to: l.relationship_match?.sanctioned_entity.entity_name ?? null,
      };
    });
    res.json({
      results,
      count: results.length,
      direct_matches: results.filter((x) => x.match && !x.relationship_match).length,
      relationship_matches: results.filter((x) => x.relationship_match).length,
      list_version: snapshot.version,
      processing_time_ms: elapsed(started),
    });
  });

  r.post(`${PREFIX}/relationships/search`, async (req, res) => {
    const started = performance.now();
    const body = parseOr400(relationshipSearchBody, req.body);
    const snapshot = await snapshotOf(deps.lists);
    const hits = searchRelationships(snapshot, snapshot.index.prepare(body.name), body.min_score);
    res.json({
      query: body.name,
      has_matches: hits.length > 0,
      match_count: hits.length,
      matches: hits.slice(0, body.limit).map((h) => ({
        matched_name: h.matchedName,
        score: Math.round(h.score * 1000) / 1000,
        related_to: { entity_id: h.related.id, entity_name: primaryName(h.related), source: h.related.source },
        relationship: { type: h.edge.type, detail: h.edge.detail, confidence: h.edge.confidence },
      })),
      processing_time_ms: elapsed(started),
    });
  });

  r.get(`${PREFIX}/entity/:id/relationships`, async (req, res) => {
    const snapshot = await snapshotOf(deps.lists);
    const id = String(req.params.id);
    const self = snapshot.byId.get(id);
    if (self === undefined) throw notFound(`no listed entity with id "${id.slice(0, 100)}" in list version ${snapshot.version}`);
    res.json(presentEntityRelationships(snapshot, self));
  });

  r.get(`${PREFIX}/relationships/stats`, async (_req, res) => {
    res.json(relationshipStats(await snapshotOf(deps.lists)));
  });

  r.get(`${PREFIX}/config`, async (req, res) => {
    res.json(await deps.configs.get(org(req)));
  });

  r.put(`${PREFIX}/config`, async (req, res) => {
    const { updated_at: _readOnly, ...change } = parseOr400(relationshipConfigBody, req.body);
    res.json(await deps.configs.put(org(req), change));
  });

  r.get(`${PREFIX}/lists`, async (_req, res) => {
    const state = deps.lists.current;
    const snapshot = state.status === 'ready' ? state.snapshot : null;
    res.json({
      status: state.status,
      list_version: snapshot?.version ?? null,
      empty: snapshot?.version === EMPTY_VERSION,
      loaded_at: snapshot?.loadedAt ?? null,
      lists: snapshot?.lists ?? [],
      last_error: deps.lists.lastError,
    });
  });
}
