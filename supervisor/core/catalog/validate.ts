import Ajv2020Module, { type ErrorObject } from 'ajv/dist/2020.js';
import { GatewayError, ErrorCode } from '../../../shared/errors.js';
import type { ToolDefinition } from '../tool-types.js';
import { isJsonObject } from '../../platform/json-object.js';

// One JSON Schema 2020-12 validator (ajv) for every tool's input, compiled once when the catalog
// is frozen: a schema that does not compile fails startup instead of failing a call later.
// No coercion and no defaults are applied by ajv: `limit: true` is an error, never the number 1. A
// tool that mirrors a Hermes function repairing its arguments (ToolDefinition.coerceArguments) does
// that repair first, on a copy, and the repaired arguments are validated.
const Ajv2020 = Ajv2020Module as unknown as typeof Ajv2020Module.default;
const ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false, validateFormats: false });

export type ArgumentValidator = (args: unknown) => Record<string, unknown>;

function describe(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'arguments do not match the schema';
  const at = e.instancePath || '(root)';
  if (e.keyword === 'additionalProperties') return `${at}: unknown property "${String(e.params.additionalProperty)}"`;
  if (e.keyword === 'required') return `${at}: missing required property "${String(e.params.missingProperty)}"`;
  return `${at} ${e.message ?? 'is invalid'}`;
}


export function compileArgumentValidator(tool: Pick<ToolDefinition, 'name' | 'inputSchema' | 'coerceArguments'>): ArgumentValidator {
  let check;
  try {
    check = ajv.compile(tool.inputSchema);
  } catch (e) {
    throw new Error(`catalog: input schema of "${tool.name}" does not compile: ${(e as Error).message}`);
  }
  return (args: unknown) => {
    const raw = args ?? {};
    const value = tool.coerceArguments && isJsonObject(raw) ? tool.coerceArguments({ ...raw }) : raw;
    if (!check(value)) {
      throw new GatewayError(ErrorCode.INVALID_ARGUMENTS, `invalid arguments for ${tool.name}: ${describe(check.errors)}`);
    }
    return value as Record<string, unknown>;
  };
}
