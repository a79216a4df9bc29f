import type { ToolDefinition, ToolSource } from '../../supervisor/core/tool-types.js';

// Tiny fixture tools standing in for real execution adapters: they let tests see
// which owner a call got, hold a native lease for a while, and observe cancellation.

export interface FixtureProbe {
  /** Owner ids seen by fixture_whoami / fixture_hold, in call order. */
  owners: string[];
  /** Resolves the currently held fixture_hold calls. */
  releaseHolds(): void;
  /** How many fixture_hold handlers observed their abort signal fire. */
  aborted: number;
  /** How many fixture_hold handlers have started. */
  started: number;
}

export function fixtureSource(): { source: ToolSource; probe: FixtureProbe } {
  let waiters: Array<() => void> = [];
  const probe: FixtureProbe = {
    owners: [],
    aborted: 0,
    started: 0,
    releaseHolds() {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
  };
  const whoami: ToolDefinition = {
    name: 'fixture_whoami',
    description: 'Fixture: report the owner id this call runs as.',
    inputSchema: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    async handler(_args, ctx) {
      probe.owners.push(ctx.owner.id);
      return { structured: { owner: ctx.owner.id, kind: ctx.owner.kind } };
    },
  };
  const bound: ToolDefinition = { ...whoami, name: 'fixture_bound', description: 'Fixture: like fixture_whoami, but needs a durable owner.', requiresOwner: true };
  const hold: ToolDefinition = {
    name: 'fixture_hold',
    description: 'Fixture: native work that runs until released by the test (ignores cancellation, like a thread-backed handler).',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    holdsLease: true,
    async handler(_args, ctx) {
      probe.owners.push(ctx.owner.id);
      probe.started++;
      ctx.signal.addEventListener('abort', () => probe.aborted++, { once: true });
      await new Promise<void>((resolve) => waiters.push(resolve));
      return { structured: { done: true } };
    },
  };
  const fail: ToolDefinition = {
    name: 'fixture_fail',
    description: 'Fixture: an upstream-style failure with structured details.',
    inputSchema: { type: 'object', properties: { secret: { type: 'string' } }, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    async handler(args) {
      return { isError: true, structured: { error: 'UPSTREAM_FAILED', message: 'upstream said no', echoed: args.secret ?? null } };
    },
  };
  return { source: { name: 'embedded', tools: () => [whoami, bound, hold, fail] }, probe };
}
