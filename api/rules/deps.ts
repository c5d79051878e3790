import type { Quotas } from '../../domain/quotas.js';
import type { Platform } from '../../infra/platform.js';
import type { DecisionSigner } from '../../pipelines/rules/decision-signing.js';
import type { Definitions } from '../../pipelines/rules/definitions.js';
import type { Engine } from '../../pipelines/rules/engine.js';
import type { TableData } from '../../pipelines/rules/table-data.js';

export interface RulesDeps {
  platform: Platform;
  definitions: Definitions;
  tableData: TableData;
  engine: Engine;
  signer: DecisionSigner;
  quotas: Quotas;
}

/** Path parameters as strings (Express 5 types them loosely). */
export const param = (req: { params: Record<string, unknown> }, name: string): string => String(req.params[name]);
