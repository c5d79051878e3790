import type { Router } from 'express';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { fieldBody } from '../../schemas/http/rules.js';
import { RESERVED_KEYS, TRANSACTION_FIELDS } from '../../domain/rules/transaction-fields.js';
import { listQuery, pageOf } from '../../schemas/http/paging.js';
import { envelope, pagedEnvelope } from './envelope.js';
import { param, type RulesDeps } from './deps.js';

const present = (orgId: string) => (f: { name: string; fieldType: string }) => ({ name: f.name, fieldType: f.fieldType, orgId });

/** Custom fields: transactions may carry them as top-level keys; expressions name them bare. */
export function mountFields(r: Router, d: RulesDeps): void {
  r.get('/fields/:orgId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const q = parseOr400(listQuery(), req.query, 'query');
    const page = pageOf((await d.definitions.snapshot(orgId)).fields, (f) => f.name, q);
    pagedEnvelope(res, { ...page, items: page.items.map(present(orgId)) });
  });

  r.post('/fields/:orgId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const body = parseOr400(fieldBody, req.body, 'custom field');
    if (body.name in TRANSACTION_FIELDS || RESERVED_KEYS.has(body.name)) throw badRequest(`invalid custom field: name '${body.name}' is a field of the transaction request`);
    if (!(await d.definitions.addField(orgId, body))) throw conflict(`custom field '${body.name}' already exists`);
    res.status(201).end();
  });

  r.get('/fields/:orgId/:fieldName', async (req, res) => {
    const orgId = param(req, 'orgId');
    const field = (await d.definitions.snapshot(orgId)).fields.find((f) => f.name === param(req, 'fieldName'));
    if (!field) throw notFound(`custom field '${param(req, 'fieldName')}' not found`);
    envelope(res, 200, present(orgId)(field));
  });
}
