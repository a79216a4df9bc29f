import { ErrorCode, GatewayError } from '../../../shared/errors.js';
import { withHermesArgumentRepair } from '../../core/hermes-args.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import { startRefusal } from '../../platform/spawning/resource-policy.js';
import type { WorkerRuntime } from '../../platform/spawning/worker-runtime.js';
import type { ExecuteCodePool } from './pool.js';

export { ExecuteCodePool } from './pool.js';
export { scriptToolDispatch } from './rpc/index.js';

// execute_code: a Python script run in a fresh, isolated unit per call (pool.ts), its hermes_tools
// calls served over the unit's own RPC socket (rpc/), its stdout and stderr redacted as code.

export function executeCodeTool(pool: ExecuteCodePool, runtime: WorkerRuntime, cwdFor: (ownerId: string) => string, catalogued: (name: string) => boolean = () => false): ToolDefinition {
  const { limits } = runtime.config;
  // Hermes' web tools are offered to scripts only when its tool server serves them here.
  const web = ['web_search', 'web_extract'].filter(catalogued);
  const webNote = web.length > 0 ? `; ${web.join(' and ')} ${web.length > 1 ? 'are' : 'is'} Hermes' own, through its tool server` : '';
  // Hermes' dispatch coercion (supervisor/core/hermes-args.ts): `reset: "true"` is a boolean, as there.
  return withHermesArgumentRepair<ToolDefinition>({
    name: 'execute_code',
    description: `Run a Python script in a fresh, isolated worker (interpreter state never persists; \`reset\` is accepted and ignored). Import tools with \`from hermes_tools import ${['terminal', 'read_file', 'write_file', 'search_files', 'patch', ...web].join(', ')}\` (at most ${limits.executeCodeMaxToolCalls} calls; terminal is foreground only, and a command Hermes would ask approval for, e.g. rm -r, git reset --hard or curl | sh, is denied with status "blocked": the script was the one approval${webNote}). Print the final result. Limits: ${limits.executeCodeDeadlineSeconds} s total including queue wait, ${limits.executeCodeConcurrency} scripts at once, ${limits.executeCodeMaxBytes} bytes of code, ${limits.executeCodeStdoutMaxBytes} characters of stdout kept (head and tail). The script runs with the service user's privileges: this is not a sandbox.`,
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 1, description: 'Python source.' },
        reset: { type: 'boolean', description: 'Accepted for compatibility; every call already starts fresh.' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
    holdsLease: true,
    redaction: 'code-file', // stdout and stderr as code, as Hermes' code_execution_tool.py (code_file=True)
    async handler(args, ctx) {
      const code = args.code as string;
      const bytes = Buffer.byteLength(code, 'utf8');
      if (bytes > limits.executeCodeMaxBytes) {
        throw new GatewayError(ErrorCode.CODE_TOO_LARGE, `code is ${bytes} bytes of UTF-8; execute_code accepts at most ${limits.executeCodeMaxBytes}`);
      }
      // A configured resource policy that is broken (RESOURCE_POLICY_INVALID) or that this host
      // cannot enforce (RESOURCE_POLICY_UNENFORCEABLE: no user manager, no delegated cgroup) fails
      // closed, as jobs do: no short worker starts unlimited.
      const refusal = startRefusal(runtime.resources, 'execute_code');
      if (refusal) throw refusal;
      const result = await pool.run(code, ctx, cwdFor(ctx.owner.id));
      return { structured: { ...result } };
    },
  });
}
