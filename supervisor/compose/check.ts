import type { Logger } from 'pino';
import { Gateway, ownerRegistry } from '../core/gateway.js';
import type { GatewayConfig } from '../platform/config.js';
import { locateHermes, type HermesInstall } from '../platform/hermes/locate.js';
import { backendAdapters, composedAdapters, type BackendAdapters } from './adapters.js';
import { nativeAdapter, type NativeAdapter } from './native.js';

// The gateway composed to be checked, not served (`hermes-mcp-gateway doctor`): the same adapters
// the served gateway composes, without the jobs adapter (which would reconcile the job database)
// and the bridge profile (which would listen).

export interface CheckedComposition {
  hermes: HermesInstall;
  native: NativeAdapter;
  backends: BackendAdapters;
  /** The composed gateway; undefined when the composition failed (`error` says why). */
  gateway?: Gateway;
  error?: Error;
  /** Closes what the composition started (the workers its adapters started for their probes). */
  close(): Promise<void>;
}

export async function composeForCheck(config: GatewayConfig, log: Logger): Promise<CheckedComposition> {
  const owners = ownerRegistry(config, log);
  // Found as the gateway's start finds it: the adapters that follow Hermes' version read it.
  const hermes = await locateHermes(config);
  const native = nativeAdapter(config, log, owners, hermes.release, hermes);
  const backends = backendAdapters(config, hermes, native, log);
  const adapters = composedAdapters(backends, native);
  try {
    const gateway = await Gateway.create({ config, log, adapters, owners });
    return { hermes, native, backends, gateway, close: () => gateway.close() };
  } catch (e) {
    return { hermes, native, backends, error: e as Error, close: async () => void (await Promise.all(adapters.map((a) => a.close?.()))) };
  }
}
