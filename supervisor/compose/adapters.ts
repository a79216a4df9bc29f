import type { Logger } from 'pino';
import type { Adapter } from '../core/adapter.js';
import type { ToolPolicy } from '../core/catalog/policy.js';
import type { GatewayConfig } from '../platform/config.js';
import { hermesProbe } from '../platform/hermes/install-report.js';
import type { HermesInstall } from '../platform/hermes/locate.js';
import { browserAdapter } from '../tools/browser/index.js';
import { graphAdapter } from '../tools/graph/index.js';
import { guardedAdapter } from '../tools/guarded/index.js';
import { hermesToolsAdapter } from '../tools/hermes-tools/index.js';
import { lspAdapter } from '../tools/lsp/index.js';
import { memoryAdapter } from '../tools/memory/index.js';
import { skillsAdapter } from '../tools/skills/index.js';
import { startupAdapter } from '../tools/startup/index.js';
import type { NativeAdapter } from './native.js';

// The adapters both the served gateway and `hermes-mcp-gateway doctor` compose: Hermes' files and
// the backends. The jobs adapter and the bridge profile are the served gateway's only (doctor
// must not reconcile the job database or listen).

/** The `hermes` readiness component: which Hermes Agent the gateway fronts, and whether it supports it. */
export function hermesAdapter(install: HermesInstall): Adapter {
  return { name: 'hermes', readiness: [{ name: 'hermes', probe: () => hermesProbe(install) }] };
}

/**
 * The adapters of Hermes' files and the backends, built but not serving. `install` is the Hermes
 * Agent the gateway fronts (locateHermes): the families that follow Hermes' version read it there.
 */
export function backendAdapters(config: GatewayConfig, install: HermesInstall, native: NativeAdapter, log: Logger, policy?: ToolPolicy) {
  const hermesTools = hermesToolsAdapter(config, install, native.runtime, log, policy);
  return {
    hermes: hermesAdapter(install),
    startup: startupAdapter(config),
    skills: skillsAdapter(config, install.release),
    guarded: guardedAdapter(config, log, install.release, native.hermesCaller),
    memory: memoryAdapter(config, log, install.release),
    browser: browserAdapter(config, log, hermesTools.vision),
    lsp: lspAdapter(config, native.runtime, log),
    graph: graphAdapter(config, native.runtime, log),
    hermesTools,
  };
}

export type BackendAdapters = ReturnType<typeof backendAdapters>;

/**
 * Every adapter a gateway composes, in catalog order: the backends, the native tools after the
 * Hermes files ones, and what only the served gateway has (the jobs, the bridge profile). A backend
 * added to backendAdapters and not placed here fails to compile (`unplaced`), so none is built and
 * left out.
 */
export function composedAdapters(backends: BackendAdapters, native: NativeAdapter, served?: { jobs: Adapter; bridge: Adapter }): Adapter[] {
  const { hermes, startup, skills, guarded, memory, browser, lsp, graph, hermesTools, ...unplaced } = backends;
  void (unplaced satisfies Record<string, never>);
  return [hermes, startup, skills, native, ...(served ? [served.jobs] : []), guarded, memory, browser, lsp, graph, ...(served ? [served.bridge] : []), hermesTools];
}
