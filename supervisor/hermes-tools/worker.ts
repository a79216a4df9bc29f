import type { Logger } from 'pino';
import type { HermesToolsFailureCode, HermesToolsSettings } from '../../shared/worker-protocol/hermes-tools.js';
import { ResidentWorker } from '../spawning/resident-worker.js';
import type { WorkerRuntime } from '../spawning/worker-runtime.js';

// The supervisor's handle on the Hermes tools worker (workers/hermes-tools-worker.ts): a resident
// worker like the graph's (spawned on first use, replaced after it died, every request bounded),
// configured with the tool server's command; its failures are the HERMES_TOOLS_* codes.

export class HermesToolsWorker extends ResidentWorker<'hermes-tools-worker', HermesToolsFailureCode> {
  constructor(runtime: WorkerRuntime, settings: HermesToolsSettings, env: Record<string, string>, log: Logger) {
    super(runtime, 'hermes-tools-worker', { type: 'configure', ...settings }, env, log, {
      name: 'hermes_tools',
      what: 'Hermes tools worker',
      failedCode: 'HERMES_TOOLS_FAILED',
      timeoutCode: 'HERMES_TOOLS_TIMEOUT',
    });
  }
}
