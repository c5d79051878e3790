import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import { pageQuery, rowPatch, rowsBody, tableBody } from '../../schemas/http/rules.js';
import { columnsOf, RowError, type TableDefinition } from '../../domain/rules/custom-table.js';
import { listQuery, pageOf } from '../../schemas/http/paging.js';
import { envelope, pagedEnvelope } from './envelope.js';
import { overQuota } from './quota.js';
import { param, type RulesDeps } from './deps.js';

const schemaOf = (t: TableDefinition) => ({ tableName: t.tableName, tableType: t.tableType, idColumn: t.idColumn, columns: columnsOf(t), optimization: t.optimization });

/** Custom tables: definitions in rule_tables, rows in one ClickHouse table each (pipelines/rules/table-data.ts). */
export function mountTables(r: Router, d: RulesDeps): void {
  async function table(orgId: string, name: string): Promise<TableDefinition> {
    const t = (await d.definitions.snapshot(orgId)).tables.find((x) => x.tableName === name);
    if (!t) throw notFound(`table '${name}' not found`);
    return t;
  }
  const rowErrors = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof RowError) throw badRequest(`invalid data: ${err.message}`);
      throw err;
    }
  };

  r.get('/tables/:orgId', async (req, res) => {
    const q = parseOr400(listQuery(), req.query, 'query');
    const names = (await d.definitions.snapshot(param(req, 'orgId'))).tables.map((t) => t.tableName);
    pagedEnvelope(res, pageOf(names, (n) => n, q));
  });

  r.post('/tables/:orgId', async (req, res) => {
    const orgId = param(req, 'orgId');
    const body = parseOr400(tableBody, req.body, 'table definition');
    const ctx = await d.engine.context(orgId);
    if (body.tableName === ctx.schema.counterTable) throw badRequest(`invalid table definition: '${body.tableName}' is the counter table's name`);
    const def: TableDefinition = { ...body, generation: randomUUID().slice(0, 8) };
    const { tables } = await d.definitions.snapshot(orgId);
    if (tables.length >= d.quotas.tables) throw overQuota(d.quotas, 'tables', 'custom tables');
    const columns = tables.reduce((n, t) => n + columnsOf(t).length, columnsOf(def).length);
    if (columns > d.quotas.columns) throw overQuota(d.quotas, 'columns', `columns over its custom tables (this table would make ${columns})`);
    if (!(await d.definitions.addTable(orgId, def, () => d.tableData.create(orgId, def)))) throw conflict(`table '${body.tableName}' already exists`);
    envelope(res, 201, schemaOf(def));
  });

  r.delete('/tables/:orgId/:tableName', async (req, res) => {
    const orgId = param(req, 'orgId');
    const name = param(req, 'tableName');
    if (!(await d.definitions.deleteTable(orgId, name, (def) => d.tableData.drop(orgId, def)))) throw notFound(`table '${name}' not found`);
    envelope(res, 200, { tableName: name });
  });

  r.get('/tables/:orgId/:tableName/data', async (req, res) => {
    const orgId = param(req, 'orgId');
    const t = await table(orgId, param(req, 'tableName'));
    const { limit, offset } = parseOr400(pageQuery, req.query, 'pagination');
    envelope(res, 200, await d.tableData.page(orgId, t, limit, offset));
  });

  r.put('/tables/:orgId/:tableName/data', async (req, res) => {
    const orgId = param(req, 'orgId');
    const t = await table(orgId, param(req, 'tableName'));
    const rows = parseOr400(rowsBody, req.body, 'data (a JSON array of row objects)');
    envelope(res, 200, await rowErrors(() => d.tableData.insert(orgId, t, rows)));
  });

  r.patch('/tables/:orgId/:tableName/data/:id', async (req, res) => {
    const orgId = param(req, 'orgId');
    const t = await table(orgId, param(req, 'tableName'));
    const changes = parseOr400(rowPatch, req.body, 'changes (a JSON object)');
    const row = await rowErrors(() => d.tableData.patch(orgId, t, param(req, 'id'), changes));
    if (!row) throw notFound(`no row with ${t.idColumn} '${param(req, 'id')}' in table '${t.tableName}'`);
    envelope(res, 200, row);
  });

  r.get('/tables/:orgId/:tableName/schema', async (req, res) => {
    envelope(res, 200, schemaOf(await table(param(req, 'orgId'), param(req, 'tableName'))));
  });
}
