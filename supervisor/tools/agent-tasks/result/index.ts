import { ErrorCode, GatewayError } from '../../../../shared/errors.js';
import type { ToolDefinition } from '../../../core/tool-types.js';
import { publicResult } from '../reply.js';
import { ID, READ_ONLY } from '../schema.js';
import { serviceOf, type BridgeState } from '../service.js';

// hermes_result: a task's durable result.json, whichever way the task ran.

export function hermesResultTool(state: BridgeState): ToolDefinition {
  return {
    name: 'hermes_result',
    description: "A task's durable result (its result.json): {id, status, summary, artifacts, next_steps, details?}. The source of truth after a run has left the agent API.",
    inputSchema: { type: 'object', properties: { id: ID }, required: ['id'], additionalProperties: false },
    annotations: READ_ONLY,
    handler: async (args) => {
      const service = serviceOf(state);
      const id = args.id as string;
      if (!service.store.existingTaskDir(id)) throw new GatewayError(ErrorCode.TASK_NOT_FOUND, `no task ${id}`);
      const result = service.store.readResult(id);
      if (!result) throw new GatewayError(ErrorCode.RESULT_NOT_FOUND, `task ${id} has no result yet`);
      return { structured: { ...publicResult({ ...result, id }), ...(result.details ? { details: result.details } : {}) } };
    },
  };
}
