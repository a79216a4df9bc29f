import { closeSync, fchmodSync, fstatSync, openSync, renameSync, writeSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Context, MiddlewareHandler } from 'hono';

// An append-only JSONL audit trail for an HTTP edge. A line holds only what an operator needs to
// reconstruct who called what: time, client address, HTTP method, path (never the query string),
// status, duration, and the RPC method, tool and error code the handler chose to report. Headers,
// bodies, task text, tokens and keys are never passed in, so they can never be written. The file
// is created 0600 (and re-chmodded if it was not), and rotated to `<file>.1` at `maxBytes`.

export interface AuditFacts {
  rpc_method?: string;
  tool?: string;
  error?: string;
  /** Who called (the gateway's /mcp edge): an OAuth client id or a static token's name, never the credential. */
  client?: string;
  /** How it was authorized: `oauth`, `static`, `none`. */
  grant?: string;
  scope?: string;
  /** ok, error:<CODE>, or why it was refused. */
  outcome?: string;
}

export interface AuditEntry extends AuditFacts {
  ts: string;
  ip: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
}

export class AuditLog {
  private fd: number | undefined;
  private size = 0;

  constructor(
    readonly file: string,
    private readonly maxBytes: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  write(entry: AuditEntry): void {
    const line = JSON.stringify(entry) + '\n';
    try {
      if (this.fd === undefined) this.open();
      if (this.size > 0 && this.size + Buffer.byteLength(line) > this.maxBytes) {
        this.close();
        renameSync(this.file, `${this.file}.1`);
        this.open();
      }
      this.size += writeSync(this.fd!, line);
    } catch (error) {
      // Auditing must never fail the request it records; the owner logs the failure.
      this.close();
      this.onError(error);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    this.fd = openSync(this.file, 'a', 0o600);
    const stat = fstatSync(this.fd);
    if ((stat.mode & 0o777) !== 0o600) fchmodSync(this.fd, 0o600);
    this.size = stat.size;
  }
}

const facts = new WeakMap<Request, AuditFacts>();

/** The facts a handler reports for its request's audit line (mutable until the response is sent). */
export function auditFacts(request: Request): AuditFacts {
  let f = facts.get(request);
  if (!f) facts.set(request, (f = {}));
  return f;
}

/** Hono middleware: one audit line per request, written after the response is decided. */
export function auditRequests(log: AuditLog, ipOf: (c: Context) => string): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      log.write({
        ts: new Date().toISOString(),
        ip: ipOf(c),
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        duration_ms: Math.round(performance.now() - started),
        ...auditFacts(c.req.raw),
      });
    }
  };
}
