import { GatewayError, ErrorCode, isGatewayError } from '../../../shared/errors.js';
import { limitText, type Limits } from '../../../shared/limits.js';
import { redactOutcome } from '../../core/result.js';
import type { ToolDefinition } from '../../core/tool-types.js';
import type { ReadinessComponent } from '../../platform/health/readiness.js';
import { hermesHomeAdvice } from '../../platform/health/advice.js';
import { readStartupContext, type StartupConfig, type StartupFile } from './read.js';

// `startup_context`: the four fixed Hermes startup files (read.ts), returned whole or not at all.
// It takes no path and is not a filesystem surface. The serialized envelope, as the client
// receives it (redacted), must fit its budget: an oversized result is an explicit error, never a
// cut document. /readyz runs exactly the same read and check.

function envelopeBudget(limits: Limits): { max: number; limit: string } {
  return limits.startupMaxEnvelopeChars <= limits.maxOutputChars
    ? { max: limits.startupMaxEnvelopeChars, limit: limitText(limits, 'startupMaxEnvelopeChars') }
    : { max: limits.maxOutputChars, limit: limitText(limits, 'maxOutputChars') };
}


/**
 * The whole-or-nothing budget of the redacted result (the pipeline's afterRedaction step): JSON
 * escaping can multiply a file's size, so it is the serialized envelope that must fit.
 */
function checkEnvelope(redacted: Record<string, unknown>, limits: Limits): Record<string, unknown> {
  const { max, limit } = envelopeBudget(limits);
  const chars = JSON.stringify(redacted).length;
  if (chars > max) {
    const parts = (redacted.files as StartupFile[])
      .filter((f) => f.present)
      .map((f) => ({ name: f.name, chars: JSON.stringify(f).length }))
      .sort((a, b) => b.chars - a.chars);
    const largest = parts[0];
    throw new GatewayError(
      ErrorCode.STARTUP_ENVELOPE_TOO_LARGE,
      `startup_context result serializes to ${chars} characters, above ${limit}` +
        (largest ? `; largest file ${largest.name} serializes to ${largest.chars} characters (${parts.map((p) => `${p.name} ${p.chars}`).join(', ')})` : ''),
    );
  }
  return redacted;
}

export function startupContextTool(config: StartupConfig): ToolDefinition {
  return {
    name: 'startup_context',
    description:
      'Read the four fixed Hermes startup files: .hermes.md (the project file: .hermes.md or HERMES.md in the project directory or, inside a git repository, the nearest one up to its root, as Hermes finds it), ' +
        'SOUL.md (identity), memories/MEMORY.md and memories/USER.md. ' +
      'Takes no arguments. Each present file is returned whole with its sha256, size and mtime, secrets redacted; an absent optional file is reported as present:false. ' +
      'Oversized, symlinked, non-regular or non-UTF-8 files fail explicitly instead of returning partial content.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true, title: 'Hermes startup context' },
    async handler(args) {
      // The catalog validates arguments against the schema first; this is the same refusal for a
      // handler reached any other way, still before anything is read.
      if (args !== undefined && args !== null && Object.keys(args).length > 0) {
        throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, 'startup_context takes no arguments; it reads only the four fixed startup files');
      }
      const result = await readStartupContext(config);
      return { structured: { ...result } };
    },
    afterRedaction: (redacted) => checkEnvelope(redacted, config.limits),
  };
}

export function startupReadiness(config: StartupConfig): ReadinessComponent {
  return {
    name: 'startup_files',
    async probe() {
      try {
        const tool = startupContextTool(config);
        const result = await readStartupContext(config);
        // The tool's own answer as the pipeline makes it: redacted, then held to the envelope budget.
        redactOutcome(tool.redaction, { structured: { ...result } }, tool.afterRedaction);
        return { ready: true, status: 'ok', details: { files: result.files.filter((f) => f.present).map((f) => f.name) } };
      } catch (e) {
        const code = isGatewayError(e) ? e.code : ErrorCode.INTERNAL_ERROR;
        const message = e instanceof Error ? e.message : String(e);
        const action =
          code === ErrorCode.STARTUP_FILE_MISSING
            ? hermesHomeAdvice(config.hermesHome)
            : 'fix the startup file named in the reason (read as UTF-8, without following symlinks, within its size budget)';
        return { ready: false, status: 'error', reason: `${code}: ${message}`, action };
      }
    },
  };
}
