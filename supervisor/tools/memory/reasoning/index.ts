import type { ToolDefinition } from '../../../core/tool-types.js';
import { REASONING_LEVELS, type ReasoningLevel } from '../config.js';
import { checkQuery, read, type MemoryToolDeps } from '../calls.js';
import { identityView, READ_ONLY } from '../views.js';

// memory_reasoning: Honcho's dialectic answer to a question about the user.

export function reasoningTool(deps: MemoryToolDeps): ToolDefinition {
  const { limits } = deps;
  const queryText = `at most ${limits.memoryQueryMaxChars} characters`;
  return {
    name: 'memory_reasoning',
    description:
      "Ask Honcho's dialectic reasoning a natural-language question about the user and get a synthesized answer from everything Hermes' memory knows. Uses Honcho's LLM: slower and costlier than memory_search or memory_profile. reasoning_level: minimal, low (default), medium, high, max.",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: `A natural-language question (${queryText}).` },
        reasoning_level: { type: 'string', enum: [...REASONING_LEVELS], description: 'Depth of reasoning; omit for the configured default (dialecticReasoningLevel, usually low).' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
    holdsLease: true,
    async handler(args, ctx) {
      const query = checkQuery(args.query, limits)!;
      const settings = deps.state.kind === 'configured' ? deps.state.backend.settings : undefined;
      const requested = args.reasoning_level as ReasoningLevel | undefined;
      const level: ReasoningLevel = requested && (settings?.reasoningDynamic ?? true) ? requested : (settings?.reasoningLevel ?? 'low');
      const r = await read(deps, ctx, async (p) => ({ p, answer: await p.observer.chat(query, { reasoningLevel: level, ...(p.observer === p.user ? {} : { target: p.user.id }) }) }));
      return { structured: { ...identityView(r.p), query, reasoning_level: level, answer: r.answer } };
    },
  };
}
