import { withoutOptionalAdvice } from './advice.js';

// Readiness components. Each adapter registers one probe; /readyz is 200 only when every required
// component says ready. A backend that is missing or not configured is reported with its reason,
// never hidden, so an operator can see exactly what blocks the tunnel cutover.

export interface ProbeResult {
  ready: boolean;
  /** Short machine-friendly status, e.g. "ok", "not_configured", "missing", "error". */
  status: string;
  reason?: string;
  /** When not ready: the one thing an operator should do about it. */
  action?: string;
  details?: Record<string, unknown>;
}

export interface ReadinessComponent {
  name: string;
  probe(): Promise<ProbeResult> | ProbeResult;
}

/** One line of /readyz's summary: a component that is not ready, why, and what to do. */
export interface ReadinessReason {
  component: string;
  reason: string;
  action: string;
}

interface ReadinessReport {
  ready: boolean;
  /** Every required component that is not ready (empty when ready). */
  reasons: ReadinessReason[];
  /**
   * Every optional component that is not ready, in the same words (`notReadyReason`): not in
   * /readyz's `reasons`, which blocks nothing, but said by the console summary at start.
   */
  optionalReasons: ReadinessReason[];
  components: Record<string, ProbeResult & { required: boolean }>;
}

/** Said for a not-ready component whose probe gave no action of its own. */
const GENERIC_ACTION = 'see this component\'s reason and details in /readyz';

const PROBE_TIMEOUT_MS = 5000;

/**
 * What /readyz says of a component that is not ready: its reason (else its status) and the one
 * thing to do (its probe's action, else the generic one). The one wording of /readyz's `reasons`
 * and of the console summary (startup-summary.ts).
 */
export function notReadyReason(component: string, result: ProbeResult): ReadinessReason {
  return { component, reason: result.reason ?? result.status, action: result.action ?? GENERIC_ACTION };
}

export class Readiness {
  private readonly components: ReadinessComponent[] = [];

  constructor(private readonly optional: ReadonlySet<string>) {}

  register(component: ReadinessComponent): void {
    if (this.components.some((c) => c.name === component.name)) {
      throw new Error(`readiness component "${component.name}" registered twice`);
    }
    this.components.push(component);
  }

  names(): string[] {
    return this.components.map((c) => c.name);
  }

  async check(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      this.components.map(async (c) => {
        let result: ProbeResult;
        let timer: NodeJS.Timeout | undefined;
        try {
          result = await Promise.race([
            Promise.resolve(c.probe()),
            new Promise<ProbeResult>((resolve) => {
              timer = setTimeout(
                () => resolve({ ready: false, status: 'timeout', reason: `probe did not answer within ${PROBE_TIMEOUT_MS} ms`, action: 'check that the backend behind this component is running and answering' }),
                PROBE_TIMEOUT_MS,
              );
            }),
          ]);
        } catch (e) {
          result = { ready: false, status: 'error', reason: (e as Error).message };
        } finally {
          if (timer) clearTimeout(timer);
        }
        const required = !this.optional.has(c.name);
        // A component declared optional is not told to be declared optional.
        if (!required && result.action !== undefined) result = { ...result, action: withoutOptionalAdvice(result.action) };
        return [c.name, { ...result, required }] as const;
      }),
    );
    const components = Object.fromEntries(entries);
    const notReady = entries.filter(([, r]) => !r.ready);
    const reasons = notReady.filter(([, r]) => r.required).map(([component, r]) => notReadyReason(component, r));
    const optionalReasons = notReady.filter(([, r]) => !r.required).map(([component, r]) => notReadyReason(component, r));
    return { ready: reasons.length === 0, reasons, optionalReasons, components };
  }
}
