import { defineProtocol, type ReadyMessage } from './protocol.js';

// The execute_code unit zygote (workers/execute/zygote.py, which mirrors these types by hand): one
// warm Python per gateway that forks units on request. 'spawn' forks a unit that connects back to
// the gateway's unit socket with its token (supervisor/tools/execute-code/units/unit-connections.ts)
// and then speaks the execute unit protocol there (execute.ts, after one `hello` frame carrying its pid);
// 'kill' SIGKILLs a unit's first process if the zygote has not reaped it yet; 'shutdown' (or EOF)
// kills every unit still held and exits. The zygote answers 'ready' once it has checked that it can
// make units on this host, else 'unavailable' with the reason; 'exit' reports a reaped unit.

type SpawnUnitMessage = { type: 'spawn'; id: string; token: string; socket: string; cwd: string; env: Record<string, string> };
type UnitExitMessage = { type: 'exit'; id: string; code: number | null; signal: number | null; error?: string };

export type ZygoteProtocol = {
  toWorker: SpawnUnitMessage | { type: 'kill'; id: string } | { type: 'shutdown' };
  fromWorker: ReadyMessage | { type: 'unavailable'; reason: string } | UnitExitMessage;
  replies: Record<never, never>;
};

export const zygoteProtocol = defineProtocol<ZygoteProtocol>('execute_code unit zygote', {
  toWorker: { spawn: true, kill: true, shutdown: true },
  fromWorker: { ready: true, unavailable: true, exit: true },
  replies: {},
});

/** The first frame a zygote-forked unit sends on its frame connection: its init's pid as the gateway sees it. */
export type UnitHelloMessage = { type: 'hello'; pid: number };
