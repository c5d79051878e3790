import type { Analytics, Migration } from '../../infra/analytics/types.js';
import type { Clock } from '../../infra/clock.js';
import type { Template } from '../../domain/video/template.js';
import type { Templates } from './ports.js';

/** Templates per organization and name in ClickHouse; a removal is a tombstone version. */

export const templateStoreMigration: Migration = {
  id: 'video-002-templates',
  statements: [
    `CREATE TABLE IF NOT EXISTS video_templates (
      org_id String,
      name String,
      record String,
      deleted UInt8,
      version UInt64
    ) ENGINE = ReplacingMergeTree(version) ORDER BY (org_id, name)`,
  ],
};

export function createTemplateStore(analytics: Analytics, clock: Clock): Templates {
  let version = 0;
  const nextVersion = () => (version = Math.max(version + 1, clock.now() * 1000));
  const write = (orgId: string, name: string, record: Template | null) =>
    analytics.insert({
      table: 'video_templates',
      values: [{ org_id: orgId, name, record: record ? JSON.stringify(record) : '', deleted: record ? 0 : 1, version: nextVersion() }],
      format: 'JSONEachRow',
    });
  const select = async (orgId: string, name?: string): Promise<Template[]> => {
    const rows = await (
      await analytics.query({
        query: `SELECT record FROM video_templates FINAL WHERE org_id = {org:String} AND deleted = 0${name === undefined ? '' : ' AND name = {name:String}'} ORDER BY name`,
        query_params: { org: orgId, name: name ?? '' },
        format: 'JSONEachRow',
      })
    ).json<{ record: string }>();
    return rows.map((r) => JSON.parse(r.record) as Template);
  };
  return {
    list: (orgId) => select(orgId),
    get: async (orgId, name) => (await select(orgId, name))[0] ?? null,
    async put(orgId, template) {
      await write(orgId, template.name, template);
      return template;
    },
    async remove(orgId, name) {
      if ((await select(orgId, name)).length === 0) return false;
      await write(orgId, name, null);
      return true;
    },
  };
}
