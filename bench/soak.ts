import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { descendantsOf } from '../shared/proc.js';
import { packageRoot } from '../shared/package-root.js';
import { PALETTE, writeChart } from './chart.js';
import { launchGateway } from './launch.js';
import { rssMb, runBench, stopChild, toolCall, verdict } from './measure.js';

// npm run soak -- --minutes N [--sessions 256] [--sample-seconds 5] [--concurrency 2]
//
// Mixed load against the real gateway bin while `sessions` capability sessions stay open (the
// token limit, 256 by default): terminal and execute_code calls, job prepare/start/status with
// some cancelled, sessions closed and reopened, and clients that hang up mid-call. Every few
// seconds it samples the gateway's RSS, open fds, zombie children, worker processes (its live
// descendants) and event-loop delay (/healthz), prints the table and a chart, and judges:
// RSS <= 120 MB with the sessions open, and no growth (RSS slope over the second half of the run,
// after warm-up, <= 1 MB/min; once every session is closed, workers and open fds back at their
// baseline and no zombie).

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '2' }, sessions: { type: 'string', default: '256' }, 'sample-seconds': { type: 'string', default: '5' }, concurrency: { type: 'string', default: '2' } } });
const MINUTES = Number(values.minutes);
const SESSIONS = Number(values.sessions);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const CONCURRENCY = Number(values.concurrency);
const RSS_TARGET_MB = 120;
const SLOPE_TARGET_MB_PER_MIN = 1;

interface Sample {
  t: number;
  rssMb: number;
  fds: number;
  zombies: number;
  workers: number;
  eldP99: number;
  eldMax: number;
  sessions: number;
}

const home = mkdtempSync(join(tmpdir(), 'hmcp-soak-'));
writeFileSync(join(home, 'SOUL.md'), '# Soul\n');
const work = join(home, 'w');
mkdirSync(work);
const { child, port } = await launchGateway(home, {
  HERMES_MCP_OPTIONAL_COMPONENTS: 'memory,lsp,graph,browser,hermes_tools,web_provider',
  // The sessions must outlive the run (their default lifetime is 15 minutes).
  HERMES_MCP_SESSION_TOKEN_TTL_SECONDS: String(Math.ceil(MINUTES * 60) + 600),
});
// Cleanup on every way out (done, failed, Ctrl-C, a stop): the gateway and everything under it go.
runBench(
  async () => {
    const base = `http://127.0.0.1:${port}`;
    const url = `${base}/mcp`;
    const pid = child.pid!;

    /** What each open fd of the gateway points at (an fd closed while listing is skipped). */
    function fdTargets(): string[] {
      const targets: string[] = [];
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          targets.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
        } catch {
          // closed meanwhile
        }
      }
      return targets;
    }
    /**
     * Open fds of the gateway, without the `/proc/<pid>/stat` handles the worker-usage sampler
     * (pidusage) holds for processes that are still alive: it keeps one per sampled process between
     * passes by design, so they follow the live worker count, not a leak. Only one per live process
     * is left out (a second one would be a leak), and never one on the gateway itself; a handle for a
     * process that is gone is counted (pidusage closes those within ~90 s).
     */
    function fds(): number {
      let n = 0;
      const excused = new Set<string>();
      for (const target of fdTargets()) {
        const stat = /^\/proc\/(\d+)\/stat$/.exec(target)?.[1];
        if (stat && stat !== String(pid) && !excused.has(stat) && existsSync(`/proc/${stat}`)) {
          excused.add(stat);
          continue;
        }
        n++;
      }
      return n;
    }
    /** Open fds by kind (pipe, socket, anon_inode:…, or a path's first directory), to tell what stays open. */
    function fdKinds(): string {
      const kinds: Record<string, number> = {};
      for (const target of fdTargets()) {
        const kind = /^(pipe|socket|anon_inode:[^\]]+)/.exec(target)?.[1] ?? target.split('/').slice(0, 3).join('/');
        kinds[kind] = (kinds[kind] ?? 0) + 1;
      }
      return Object.entries(kinds).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
    }
    async function sample(t0: number): Promise<Sample> {
      const h = (await (await fetch(`${base}/healthz`)).json()) as { zombie_children: number; capability_sessions: number; event_loop_delay?: { p99_ms: number; max_ms: number } };
      return { t: (Date.now() - t0) / 1000, rssMb: rssMb(pid), fds: fds(), zombies: h.zombie_children, workers: descendantsOf(pid).length, eldP99: h.event_loop_delay?.p99_ms ?? NaN, eldMax: h.event_loop_delay?.max_ms ?? NaN, sessions: h.capability_sessions };
    }

    const tokens: string[] = [];
    const open = async () => (await toolCall(url, 'session_open', {})).session_token as string;
    for (let i = 0; i < SESSIONS; i++) tokens.push(await open());

    /** Per operation: successes, failures, and the first few distinct failure messages (so a failure says why). */
    const counts: Record<string, { ok: number; failed: number; reasons: Set<string> }> = {};
    let jobSeq = 0;
    const anyToken = () => tokens[Math.floor(Math.random() * tokens.length)]!;
    const OPS: Record<string, () => Promise<void>> = {
      terminal: async () => void (await toolCall(url, 'terminal', { command: 'echo soak' }, anyToken())),
      execute_code: async () => void (await toolCall(url, 'execute_code', { code: 'print(sum(range(1000)))' }, anyToken())),
      session_churn: async () => {
        const i = Math.floor(Math.random() * tokens.length);
        await toolCall(url, 'session_close', {}, tokens[i]!);
        tokens[i] = await open();
      },
      job: async () => {
        const dir = join(work, `j${++jobSeq}`);
        mkdirSync(dir);
        const token = anyToken();
        const prep = await toolCall(url, 'job_prepare', { command: 'sleep 0.5; echo done', workdir: dir }, token);
        const job = { job_id: prep.job_id, recovery_token: prep.recovery_token };
        await toolCall(url, 'job_start', job, token);
        if (jobSeq % 4 === 0) await toolCall(url, 'job_cancel', job);
        else await toolCall(url, 'job_status', { ...job, wait_seconds: 5 });
      },
      disconnect: async () => {
        // A client that hangs up mid-call: the gateway must end the command and free the call.
        const controller = new AbortController();
        const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tool_call', arguments: { calls: [{ name: 'terminal', arguments: { command: 'sleep 3' } }], session_token: anyToken() }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };
        setTimeout(() => controller.abort(), 200);
        await fetch(url, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'tool_call' }, body: JSON.stringify(body) }).catch(() => undefined);
      },
    };
    const names = Object.keys(OPS);

    const samples: Sample[] = [];
    const t0 = Date.now();
    const end = t0 + MINUTES * 60_000;
    samples.push(await sample(t0));
    const sampler = setInterval(() => void sample(t0).then((s) => samples.push(s)), SAMPLE_MS);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          const name = names[Math.floor(Math.random() * names.length)]!;
          const c = (counts[name] ??= { ok: 0, failed: 0, reasons: new Set() });
          try {
            await OPS[name]!();
            c.ok++;
          } catch (e) {
            c.failed++;
            if (c.reasons.size < 3) c.reasons.add((e as Error).message.slice(0, 300));
          }
        }
      }),
    );
    clearInterval(sampler);
    await new Promise((r) => setTimeout(r, 3000)); // let the last disconnected commands and jobs settle
    samples.push(await sample(t0));
    // Each open session keeps its terminal's bash (one worker, a few fds) until it idles out: that is
    // by design, so what must come back is the baseline once every session is closed. The worker-usage
    // sampler (pidusage) keeps a /proc/<pid>/stat fd per sampled process for its 60 s history, closed
    // by a sweep every 30 s, so fds of ended processes may take up to 90 s to go (see fds()).
    for (const token of tokens) await toolCall(url, 'session_close', {}, token).catch(() => undefined);
    const releaseEnd = Date.now() + 100_000;
    let released = await sample(t0);
    while ((released.workers > samples[0]!.workers || released.fds > samples[0]!.fds + 8) && Date.now() < releaseEnd) {
      await new Promise((r) => setTimeout(r, 1000));
      released = await sample(t0);
    }

    // Least-squares slope of RSS (MB/min) over the second half: the first half is warm-up (pools, JIT).
    const half = samples.slice(Math.floor(samples.length / 2));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const mt = mean(half.map((s) => s.t));
    const mr = mean(half.map((s) => s.rssMb));
    const slope = (half.reduce((a, s) => a + (s.t - mt) * (s.rssMb - mr), 0) / Math.max(1e-9, half.reduce((a, s) => a + (s.t - mt) ** 2, 0))) * 60;
    const maxRss = Math.max(...samples.map((s) => s.rssMb));

    const pad = (v: string | number, n: number) => String(v).padStart(n);
    console.log(`soak: ${MINUTES} min, ${SESSIONS} capability sessions open, concurrency ${CONCURRENCY}, sample every ${SAMPLE_MS / 1000} s, gateway pid ${pid}`);
    console.log(`open fds counted without the usage sampler's handles on live processes`);
    console.log(`${pad('t (s)', 7)} ${pad('RSS MB', 7)} ${pad('fds', 5)} ${pad('zombies', 7)} ${pad('workers', 7)} ${pad('ELD p99', 8)} ${pad('ELD max', 8)} ${pad('sessions', 8)}`);
    for (const s of samples) console.log(`${pad(s.t.toFixed(0), 7)} ${pad(s.rssMb.toFixed(1), 7)} ${pad(s.fds, 5)} ${pad(s.zombies, 7)} ${pad(s.workers, 7)} ${pad(s.eldP99.toFixed(1), 8)} ${pad(s.eldMax.toFixed(1), 8)} ${pad(s.sessions, 8)}`);
    console.log(`operations: ${Object.entries(counts).map(([n, c]) => `${n} ${c.ok} ok/${c.failed} failed`).join(', ')}`);
    for (const [n, c] of Object.entries(counts)) for (const reason of c.reasons) console.log(`  ${n} failed: ${reason}`);
    console.log(`RSS max ${maxRss.toFixed(1)} MB with ${SESSIONS} sessions (target <= ${RSS_TARGET_MB} MB)  ${verdict(maxRss <= RSS_TARGET_MB)}`);
    console.log(`RSS slope over the second half ${slope.toFixed(2)} MB/min (target <= ${SLOPE_TARGET_MB_PER_MIN})  ${verdict(slope <= SLOPE_TARGET_MB_PER_MIN)}`);
    console.log(`under load: up to ${Math.max(...samples.map((s) => s.workers))} workers and ${Math.max(...samples.map((s) => s.fds))} fds (each open session's terminal bash is kept until it idles out)`);
    console.log(`after closing every session: workers ${samples[0]!.workers} -> ${released.workers}, open fds ${samples[0]!.fds} -> ${released.fds}, zombies ${released.zombies} (${released.t.toFixed(0)} s)  ${verdict(released.zombies === 0 && released.workers <= samples[0]!.workers && released.fds <= samples[0]!.fds + 8)}`);

    console.log(`open fds by kind at the end (all of them): ${fdKinds()}`);

    const series: Array<[string, (s: Sample) => number]> = [['RSS MB', (s) => s.rssMb], ['open fds', (s) => s.fds], ['workers', (s) => s.workers], ['zombies', (s) => s.zombies], ['ELD p99 ms', (s) => s.eldP99], ['ELD max ms', (s) => s.eldMax]];
    const dir = join(packageRoot(), 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const png = join(dir, `soak-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.png`);
    writeChart(png, series.map(([, f]) => samples.map(f)));
    console.log(`chart (each series scaled to its own max): ${png}`);
    series.forEach(([name, f], i) => console.log(`  rgb(${PALETTE[i]!.join(',')}) ${name}: ${Math.min(...samples.map(f)).toFixed(1)}..${Math.max(...samples.map(f)).toFixed(1)}`));
  },
  async () => {
    await stopChild(child);
    rmSync(home, { recursive: true, force: true });
  },
);
