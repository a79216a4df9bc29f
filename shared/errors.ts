// Stable error codes. Clients and prompts match on these strings, so a code is never renamed or
// reused for a different condition; add new ones instead.
export const ErrorCode = {
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  TOOL_NOT_PUBLIC: 'TOOL_NOT_PUBLIC',
  SESSION_TOKEN_INVALID: 'SESSION_TOKEN_INVALID',
  SESSION_TOKEN_EXPIRED: 'SESSION_TOKEN_EXPIRED',
  SESSION_TOKEN_REVOKED: 'SESSION_TOKEN_REVOKED',
  SESSION_TOKEN_FOREIGN: 'SESSION_TOKEN_FOREIGN',
  SESSION_LIMIT_REACHED: 'SESSION_LIMIT_REACHED',
  OWNER_REQUIRED: 'OWNER_REQUIRED',
  STARTUP_FILE_MISSING: 'STARTUP_FILE_MISSING',
  STARTUP_FILE_SYMLINK: 'STARTUP_FILE_SYMLINK',
  STARTUP_FILE_NOT_REGULAR: 'STARTUP_FILE_NOT_REGULAR',
  STARTUP_FILE_TOO_LARGE: 'STARTUP_FILE_TOO_LARGE',
  STARTUP_FILE_INVALID_UTF8: 'STARTUP_FILE_INVALID_UTF8',
  STARTUP_FILE_CHANGED: 'STARTUP_FILE_CHANGED',
  STARTUP_ENVELOPE_TOO_LARGE: 'STARTUP_ENVELOPE_TOO_LARGE',
  SKILL_NOT_FOUND: 'SKILL_NOT_FOUND',
  SKILL_AMBIGUOUS: 'SKILL_AMBIGUOUS',
  SKILL_PATH_INVALID: 'SKILL_PATH_INVALID',
  PATH_OUTSIDE_ROOTS: 'PATH_OUTSIDE_ROOTS',
  MEMORY_NOT_CONFIGURED: 'MEMORY_NOT_CONFIGURED',
  BUSY: 'BUSY',
  CANCELLED: 'CANCELLED',
  UPSTREAM_FAILED: 'UPSTREAM_FAILED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** An expected, client-facing failure: becomes `isError: true` with `{error: code, message}`. */
export class GatewayError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
