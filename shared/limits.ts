import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { packageRoot } from './package-root.js';

// The defaults are data (policy/default-limits.json); this module only types, validates and
// applies environment overrides, so an operator can see every limit in one file.
const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const LimitsSchema = v.object({
  maxRequestBodyBytes: PositiveInt,
  maxOutputChars: PositiveInt,
  sessionTokenTtlSeconds: PositiveInt,
  maxSessionTokens: PositiveInt,
  legacySessionIdleSeconds: PositiveInt,
  ownerWorkerIdleSeconds: PositiveInt,
  maxLegacySessions: PositiveInt,
  startupMaxFileBytes: PositiveInt,
  startupMaxTotalBytes: PositiveInt,
  startupMaxEnvelopeChars: PositiveInt,
  skillsMaxFiles: PositiveInt,
  skillListReadChars: PositiveInt,
  skillViewMaxBytes: PositiveInt,
  searchFilesMaxEntries: PositiveInt,
  searchFilesTimeoutSeconds: PositiveInt,
  hermesConfigMaxBytes: PositiveInt,
  readFileScanMaxBytes: PositiveInt,
  // files up to this size on a local disk or memory file system are read on the event loop (read-file.ts)
  readFileInlineMaxBytes: PositiveInt,
  // how long Hermes' own document extractor may take for one document read_file hands it (read-document.ts)
  readFileDocumentTimeoutSeconds: PositiveInt,
  // write_file/patch's syntax check of a Python or TOML file in Python: its time, and the largest text checked (lint.ts)
  writeLintTimeoutSeconds: PositiveInt,
  writeLintMaxBytes: PositiveInt,
  searchDescriptionMaxChars: PositiveInt,
  searchMaxQueries: PositiveInt,
  searchMaxLimit: PositiveInt,
  searchDefaultLimit: PositiveInt,
  describeMaxNames: PositiveInt,
  shutdownGraceSeconds: PositiveInt,
  // the HTTP listener's idle keep-alive, time to receive a request's headers, and its whole body
  httpKeepAliveTimeoutSeconds: PositiveInt,
  httpHeadersTimeoutSeconds: PositiveInt,
  httpRequestTimeoutSeconds: PositiveInt,
  orphanReapIntervalSeconds: PositiveInt,
  workerReapGraceSeconds: PositiveInt,
  // a private state directory without an owner record (an older gateway's) is removed at start only once left alone this long (private-dirs.ts)
  unrecordedStateDirAgeSeconds: PositiveInt,
  terminalMaxTimeoutSeconds: PositiveInt,
  terminalOutputMaxChars: PositiveInt,
  workerTransportMaxBytes: PositiveInt,
  executeCodeMaxBytes: PositiveInt,
  executeCodeConcurrency: PositiveInt,
  executeCodeMaxQueued: PositiveInt,
  executeCodeDeadlineSeconds: PositiveInt,
  executeCodeMaxToolCalls: PositiveInt,
  executeCodeStdoutMaxBytes: PositiveInt,
  processWaitMaxSeconds: PositiveInt,
  offloadResultChars: PositiveInt,
  maxActiveJobs: PositiveInt,
  maxActiveJobsPerSession: PositiveInt,
  jobMaxRuntimeSeconds: PositiveInt,
  jobDefaultRuntimeSeconds: PositiveInt,
  jobPrepareTtlSeconds: PositiveInt,
  maxPreparedJobs: PositiveInt,
  jobStatusMaxWaitSeconds: PositiveInt,
  jobReceiptRetentionSeconds: PositiveInt,
  jobOutputTailChars: PositiveInt,
  jobKillGraceSeconds: PositiveInt,
  jobMaintenanceIntervalSeconds: PositiveInt,
  // a job database that could not open is tried again on use, at most this often (doubling up to the maximum)
  jobStoreRetryMinMs: PositiveInt,
  jobStoreRetryMaxSeconds: PositiveInt,
  drainTimeoutSeconds: PositiveInt,
  workerStartTimeoutSeconds: PositiveInt,
  memoryTimeoutSeconds: PositiveInt,
  memoryWorkerMaxSeconds: PositiveInt,
  memoryQueryMaxChars: PositiveInt,
  memoryConclusionMaxChars: PositiveInt,
  lspCallTimeoutSeconds: PositiveInt,
  lspServerIdleSeconds: PositiveInt,
  lspDiagnosticsSettleMs: PositiveInt,
  lspMaxFileBytes: PositiveInt,
  // hermes-mcp-lsp's cap on one result (with maxOutputChars, the smaller applies): under Hermes' own MCP result budget
  lspStdioMaxOutputChars: PositiveInt,
  bridgeMaxBodyBytes: PositiveInt,
  bridgeRateLimitPerMinute: PositiveInt,
  bridgeMaxBatch: PositiveInt,
  bridgeAuditMaxBytes: PositiveInt,
  bridgeFileMaxBytes: PositiveInt,
  bridgeResultMaxBytes: PositiveInt,
  bridgeUpstreamMaxBytes: PositiveInt,
  bridgeContractMaxBytes: PositiveInt,
  bridgeListMaxEntries: PositiveInt,
  bridgeResponseMaxChars: PositiveInt,
  bridgeSyncTimeoutSeconds: PositiveInt,
  bridgeRequestTimeoutSeconds: PositiveInt,
  bridgeProbeTimeoutSeconds: PositiveInt,
  bridgeSessionHistoryMaxMessages: PositiveInt,
  bridgeCapabilitiesCacheSeconds: PositiveInt,
  graphMaxSessions: PositiveInt,
  graphCallTimeoutSeconds: PositiveInt,
  graphStartupTimeoutSeconds: PositiveInt,
  browserCommandTimeoutSeconds: PositiveInt,
  browserNavigateTimeoutSeconds: PositiveInt,
  browserHealthTimeoutSeconds: PositiveInt,
  browserSnapshotMaxChars: PositiveInt,
  browserUrlMaxChars: PositiveInt,
  browserTypeMaxChars: PositiveInt,
  browserExpressionMaxChars: PositiveInt,
  browserQuestionMaxChars: PositiveInt,
  hermesToolsCallTimeoutSeconds: PositiveInt,
  hermesToolsMediaTimeoutSeconds: PositiveInt,
  hermesToolsStartupTimeoutSeconds: PositiveInt,
  hermesToolsWebSmokeTimeoutSeconds: PositiveInt,
  hermesToolsRestartMinMs: PositiveInt,
  hermesToolsRestartMaxSeconds: PositiveInt,
  hermesToolsStuckPingMs: PositiveInt,
  // doctor's question to the Hermes interpreter (which Hermes Agent it has)
  hermesAgentVersionTimeoutSeconds: PositiveInt,
  // cronjob: one call of Hermes' own cron code (interpreter start included), the wait for Hermes'
  // cron/.jobs.lock inside it, and how many such calls run at once (the rest queue)
  cronjobCallTimeoutSeconds: PositiveInt,
  cronjobLockWaitSeconds: PositiveInt,
  cronjobConcurrentCalls: PositiveInt,
  // PTY jobs: the terminal's window size when job_prepare gives none, and the largest allowed.
  ptyDefaultCols: PositiveInt,
  ptyDefaultRows: PositiveInt,
  ptyMaxCols: PositiveInt,
  ptyMaxRows: PositiveInt,
  // authentication (supervisor/http/auth/)
  authAccessTokenTtlSeconds: PositiveInt,
  authRefreshTokenTtlSeconds: PositiveInt,
  authCodeTtlSeconds: PositiveInt,
  authConsentTtlSeconds: PositiveInt,
  authConsentMaxTries: PositiveInt,
  authRateLimitPerMinute: PositiveInt,
  authOauthRateLimitPerMinute: PositiveInt,
  authAuditMaxBytes: PositiveInt,
  // wrong consent passphrases across all requests before passphrase approval is switched off for a while
  authPassphraseMaxFailures: PositiveInt,
  authPassphraseFailureWindowSeconds: PositiveInt,
  authPassphraseLockoutSeconds: PositiveInt,
  // the file tools' per-task state (supervisor/tools/files/read-state.ts): paths one owner's state keeps per kind of record
  fileStatePathsPerOwner: PositiveInt,
  // how long a sessionless credential's file reads count for write_file's read-before-overwrite guard, and how many such credentials are kept
  fileStateLedgerTtlSeconds: PositiveInt,
  fileStateMaxLedgers: PositiveInt,
});
export type Limits = Readonly<v.InferOutput<typeof LimitsSchema>>;

export function envNameFor(limit: string): string {
  return 'HERMES_MCP_' + limit.replace(/([A-Z])/g, '_$1').toUpperCase();
}

/** A limit as an error message names it: its key, its value and the variable that sets it. */
export function limitText(limits: Limits, key: keyof Limits): string {
  return `${key}=${limits[key]} (${envNameFor(key)})`;
}

let defaultsCache: Limits | undefined;
export function defaultLimits(): Limits {
  if (!defaultsCache) {
    const raw = JSON.parse(readFileSync(join(packageRoot(), 'policy', 'default-limits.json'), 'utf8'));
    delete raw.$comment;
    defaultsCache = Object.freeze(v.parse(LimitsSchema, raw));
  }
  return defaultsCache;
}

/** Defaults, then `HERMES_MCP_*` environment overrides, then explicit overrides (embedding, tests). */
export function loadLimits(env: NodeJS.ProcessEnv, overrides: Partial<Limits> = {}): Limits {
  const merged: Record<string, unknown> = { ...defaultLimits() };
  for (const key of Object.keys(merged)) {
    const text = env[envNameFor(key)];
    if (text === undefined || text === '') continue;
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new Error(`${envNameFor(key)} must be a positive integer, got ${JSON.stringify(text)}`);
    }
    merged[key] = n;
  }
  Object.assign(merged, overrides);
  const result = v.safeParse(LimitsSchema, merged);
  if (!result.success) {
    throw new Error('invalid limits: ' + result.issues.map((i) => `${v.getDotPath(i)}: ${i.message}`).join('; '));
  }
  checkPtySizes(result.output);
  checkHttpTimeouts(result.output);
  return Object.freeze(result.output);
}

/** A PTY job's default window must be one job_prepare would accept: within the configured maximum. */
function checkPtySizes(limits: Limits): void {
  for (const [size, max] of [['ptyDefaultCols', 'ptyMaxCols'], ['ptyDefaultRows', 'ptyMaxRows']] as const) {
    if (limits[size] > limits[max]) {
      throw new Error(`${envNameFor(size)} (${limits[size]}) must not exceed ${envNameFor(max)} (${limits[max]})`);
    }
  }
}

/**
 * Node refuses a headers timeout longer than the request timeout; the keep-alive stays below the
 * headers timeout as in Node's own defaults (5, 60 and 300 s): keep-alive < headers <= request.
 */
function checkHttpTimeouts(limits: Limits): void {
  const { httpKeepAliveTimeoutSeconds: keepAlive, httpHeadersTimeoutSeconds: headers, httpRequestTimeoutSeconds: request } = limits;
  if (keepAlive >= headers) throw new Error(`${envNameFor('httpKeepAliveTimeoutSeconds')} (${keepAlive}) must be less than ${envNameFor('httpHeadersTimeoutSeconds')} (${headers})`);
  if (headers > request) throw new Error(`${envNameFor('httpHeadersTimeoutSeconds')} (${headers}) must not exceed ${envNameFor('httpRequestTimeoutSeconds')} (${request})`);
}
