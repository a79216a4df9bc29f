// A gateway-wide brake on passphrase guessing. Each consent request locks after a few wrong
// passphrases, but anyone can open new requests; so wrong passphrases are also counted across all
// requests, and past `maxFailures` within `windowMs` the passphrase is not even checked for
// `lockoutMs` (the operator can still approve with the CLI and the page's code).

export interface PassphraseLimitOptions {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  now: () => number;
}

export class PassphraseLimit {
  private failures: number[] = [];
  private disabledUntil = 0;

  constructor(private readonly o: PassphraseLimitOptions) {}

  /** Milliseconds until passphrase approval is allowed again; 0 when it is allowed now. */
  disabledFor(): number {
    return Math.max(0, this.disabledUntil - this.o.now());
  }

  /** Counts one wrong passphrase; true when this one tripped the limit (passphrase approval now disabled). */
  fail(): boolean {
    const now = this.o.now();
    this.failures = this.failures.filter((t) => t > now - this.o.windowMs);
    this.failures.push(now);
    if (this.failures.length < this.o.maxFailures) return false;
    this.failures = [];
    this.disabledUntil = now + this.o.lockoutMs;
    return true;
  }
}
