import pidusage from 'pidusage';
import { descendantsOf } from '../../../shared/proc.js';

// CPU and memory of the live workers and everything running under them (pidusage reads /proc;
// nothing is spawned), for /healthz and the periodic usage log line.

export interface WorkerUsage {
  workers: number;
  processes: number;
  cpu_percent: number;
  rss_bytes: number;
}

export async function sampleWorkerUsage(workerPids: readonly number[]): Promise<WorkerUsage> {
  const pids = [...new Set(workerPids.flatMap((pid) => [pid, ...descendantsOf(pid)]))];
  if (pids.length === 0) return { workers: 0, processes: 0, cpu_percent: 0, rss_bytes: 0 };
  let stats: Record<string, { cpu: number; memory: number } | null> = {};
  try {
    stats = (await pidusage(pids)) as unknown as Record<string, { cpu: number; memory: number } | null>;
  } catch {
    // a process exited between the walk and the sample: report what is known
  }
  let cpu = 0;
  let rss = 0;
  let processes = 0;
  for (const s of Object.values(stats)) {
    if (!s) continue;
    processes++;
    cpu += s.cpu;
    rss += s.memory;
  }
  return { workers: workerPids.length, processes, cpu_percent: Math.round(cpu * 10) / 10, rss_bytes: rss };
}
