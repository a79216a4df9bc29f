import type { GateContext } from './context.js';
import { browserGate, discoveryGate, graphGate, guardedGate, honchoGate, lspGate, sessionSearchGate } from './backends.js';
import { graphReadinessGate, healthGate, systemdGate } from './host.js';
import { executeCodeGate, hermesToolsGate, toolSetGate } from './native.js';

// The gates in the order they run: the numbering is the integration-gate list in
// docs/operations.md (Gates); 7 restarts the gateway, so it runs last.

export interface Gate {
  id: string;
  name: string;
  run(ctx: GateContext): Promise<string>;
}

export const GATES: Gate[] = [
  { id: '1', name: 'execute_code', run: executeCodeGate },
  { id: '2a', name: 'native and browser tool set', run: toolSetGate },
  { id: '2b', name: "Hermes' tool server tools", run: hermesToolsGate },
  { id: '3a', name: 'guarded capabilities', run: guardedGate },
  { id: '3b', name: 'session_search', run: sessionSearchGate },
  { id: '4', name: 'Honcho memory', run: honchoGate },
  { id: '5a', name: 'discovery', run: discoveryGate },
  { id: '5b', name: 'LSP call', run: lspGate },
  { id: '5c', name: 'browser call', run: browserGate },
  { id: '5d', name: 'code graph call', run: graphGate },
  { id: '6a', name: 'health and readiness', run: healthGate },
  { id: '6b', name: 'graph readiness', run: graphReadinessGate },
  { id: '7', name: 'systemd', run: systemdGate },
];
