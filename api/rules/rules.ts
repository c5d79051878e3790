import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { badRequest, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { previewBody, ruleBody, statusBody, type RuleBody } from '../../schemas/http/rules.js';
import { ruleProblem, type Rule, type VersionedRule } from '../../domain/rules/rule.js';
import { toClickHouse } from '../../domain/rules/sql.js';
import { toRuntime, type Value } from '../../domain/rules/values.js';
import { listQuery, pageOf } from '../../schemas/http/paging.js';
import { envelope, pagedEnvelope } from './envelope.js';
import { overQuota } from './quota.js';
import { param, type RulesDeps } from './deps.js';

const present = ({ version: _version, ...rule }: VersionedRule): Rule => rule;

/** Rules: stored with their expressions checked against the organization's schema at write time. */
export function mountRules(r: Router, d: RulesDeps): void {
  async function checked(orgId: string, raw: unknown): Promise<RuleBody> {
    const body = parseOr400(ruleBody, raw, 'rule');
    const problem = ruleProblem(body.evaluations, (await d.engine.context(orgId)).schema);
    if (problem) throw badRequest(`invalid rule: ${problem}`);
    return body;
  }

  async function existing(orgId: string, ruleId: string): Promise<VersionedRule> {
    const rule = (await d.definitions.snapshot(orgId)).rules.find((x) => x.id === ruleId);
    if (!rule) throw notFound(`rule '${ruleId}' not found`);
    return rule;
  }

  r.get('/rules/:orgId', async (req, res) => {
    const q = parseOr400(listQuery(), req.query, 'query');
    const { rules } = await d.definitions.snapshot(param(req, 'orgId'));
    const page = pageOf(rules, (x) => x.id, q);
    pagedEnvelope(res, { ...page, items: page.items.map(present) });
  });

  r.post('/rules/:orgId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const body = await checked(orgId, req.body);
    if ((await d.definitions.snapshot(orgId)).rules.length >= d.quotas.rules) throw overQuota(d.quotas, 'rules', 'rules');
    const ruleId = randomUUID();
    await d.definitions.putRule(orgId, { id: ruleId, ...body });
    envelope(res, 201, { ruleId });
  });

  r.get('/rules/:orgId/:ruleId', async (req, res) => {
    envelope(res, 200, present(await existing(param(req, 'orgId'), param(req, 'ruleId'))));
  });

  r.put('/rules/:orgId/:ruleId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const ruleId = param(req, 'ruleId');
    await existing(orgId, ruleId);
    const rule: Rule = { id: ruleId, ...(await checked(orgId, req.body)) };
    await d.definitions.putRule(orgId, rule);
    envelope(res, 200, rule);
  });

  r.delete('/rules/:orgId/:ruleId', async (req, res) => {
    const ruleId = param(req, 'ruleId');
    if (!(await d.definitions.deleteRule(param(req, 'orgId'), ruleId))) throw notFound(`rule '${ruleId}' not found`);
    envelope(res, 200, { ruleId });
  });

  r.patch('/rules/:orgId/:ruleId/status', async (req, res) => {
    const orgId = param(req, 'orgId');
    const rule = await existing(orgId, param(req, 'ruleId'));
    const { active } = parseOr400(statusBody, req.body, 'status body');
    await d.definitions.putRule(orgId, { ...present(rule), active });
    envelope(res, 200, { ruleId: rule.id, active });
  });

  /**
   * The ClickHouse SQL of each evaluation, parameterised: `sql` names `{pN:Type}` parameters and
   * `params` holds their values (with `{transaction}`, the transaction's; else NULLs). This is
   * exactly what the SQL back end executes.
   */
  r.post('/rules/:orgId/:ruleId/sql-preview', async (req, res) => {
    const orgId = param(req, 'orgId');
    const ctx = await d.engine.context(orgId);
    const compiled = ctx.rules.get(param(req, 'ruleId'));
    if (!compiled) throw notFound(`rule '${param(req, 'ruleId')}' not found`);
    const body = parseOr400(previewBody, req.body ?? {}, 'preview body');
    let tx: Record<string, Value> | null = null;
    if (body.transaction) {
      const valid = parseOr400(ctx.transaction, body.transaction, 'transaction');
      tx = Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, toRuntime(ctx.schema.fields.get(k) ?? 'string', v)]));
    }
    const items = compiled.evaluations.map((ev) => {
      if (!ev.ok) return { name: ev.name, sql: `-- cannot compile: ${ev.error}`, params: {}, error: ev.error };
      const q = toClickHouse(ev.expr, ctx.schema, ctx.sources, tx, d.platform.clock.now());
      return { name: ev.name, sql: q.sql, params: q.params };
    });
    envelope(res, 200, items);
  });
}
