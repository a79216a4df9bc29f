import { ansiBlock } from './ansi.js';
import { card, commandBlock, errorCard, shownText, truncationNote, type Outcome, type Structured, type ToolResult } from './cards.js';
import { button, duration, el } from './dom.js';

// A job's card, kept current: while the job is starting or running the view asks job_status
// (through tool_call and the host's bridge, like any model call) with a bounded wait_seconds, so
// the gateway answers on a state change or after the wait; never faster than MIN_GAP_MS, paused
// while the view is hidden, stopped when the job ends or the view is torn down. The recovery
// token is held here only, in memory, and only when the call the view was given carried it.

const WAIT_SECONDS = 20;
const MIN_GAP_MS = 1_000;
const ACTIVE = new Set(['starting', 'running']);
const CANCELLABLE = new Set(['prepared', 'starting', 'running', 'unknown']);
/** States in which the job's command failed, whatever its exit code says (a timeout kills it). */
const FAILED = new Set(['failed', 'timed_out']);

export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const time = (v: unknown): number | undefined => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined);

export class JobCard {
  readonly root = el('div', 'job');
  private job: Structured;
  /** The job's output tail as shown: in its colours when the answer carried them. */
  private tail: string | undefined;
  private readonly token: string | undefined;
  private stopped = false;
  private following = false;
  private confirming = false;
  private problem: HTMLElement | null = null;
  private ticker: ReturnType<typeof setInterval> | undefined;

  /**
   * `command` is the one the call's input carried (job_prepare's `arguments.command`): the job's
   * receipt never holds it, so the cards of later job calls show none.
   */
  constructor(
    private readonly tool: string,
    result: ToolResult,
    token: string | undefined,
    private readonly callTool: CallTool,
    private readonly command?: string,
  ) {
    this.job = result.structuredContent ?? {};
    this.tail = shownText(result, 'output_tail');
    this.token = token;
    document.addEventListener('visibilitychange', this.onVisibility);
    this.render();
    this.ticker = setInterval(() => this.renderTimes(), 1_000);
    this.follow();
  }

  get state(): string {
    return str(this.job.state) ?? 'unknown';
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.ticker);
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  private readonly onVisibility = () => {
    if (document.visibilityState === 'visible') this.follow();
  };

  private canCall(): boolean {
    return this.token !== undefined && typeof this.job.job_id === 'string';
  }

  private async follow(): Promise<void> {
    if (this.following || this.stopped || !this.canCall()) return;
    this.following = true;
    try {
      while (!this.stopped && ACTIVE.has(this.state) && document.visibilityState !== 'hidden') {
        const started = Date.now();
        const answer = await this.call('job_status', { wait_seconds: WAIT_SECONDS });
        if (!answer) break;
        const gap = MIN_GAP_MS - (Date.now() - started);
        if (gap > 0) await new Promise((r) => setTimeout(r, gap));
      }
    } finally {
      this.following = false;
    }
  }

  /** One job tool call through tool_call; the answer replaces the card's job, or shows why not. */
  private async call(name: 'job_status' | 'job_cancel', extra: Record<string, unknown> = {}): Promise<boolean> {
    let result: ToolResult;
    try {
      result = await this.callTool('tool_call', { calls: [{ name, arguments: { job_id: this.job.job_id, recovery_token: this.token, ...extra } }] });
    } catch (error) {
      this.problem = errorCard({ error: 'HOST_CALL_FAILED', message: error instanceof Error ? error.message : String(error) }, name);
      this.render();
      return false;
    }
    const s = result.structuredContent ?? {};
    if (result.isError === true) {
      this.problem = errorCard(typeof s.error === 'string' ? s : { error: 'ERROR', message: result.content?.[0]?.text ?? '' }, name);
      this.render();
      return false;
    }
    this.problem = null;
    if (typeof s.state === 'string') {
      this.job = s;
      this.tail = shownText(result, 'output_tail');
    }
    this.render();
    return true;
  }

  private renderTimes(): void {
    const node = this.root.querySelector('.job-times');
    if (node) node.replaceWith(this.times());
    if (!ACTIVE.has(this.state) && this.state !== 'prepared') clearInterval(this.ticker);
  }

  private times(): HTMLElement {
    const now = Date.now();
    const started = time(this.job.started_at);
    const finished = time(this.job.finished_at);
    const deadline = time(this.job.deadline_at);
    const expires = time(this.job.expires_at);
    const parts: string[] = [];
    if (started !== undefined) parts.push(`elapsed ${duration((finished ?? now) - started)}`);
    if (ACTIVE.has(this.state) && deadline !== undefined) parts.push(`${duration(deadline - now)} left`);
    if (this.state === 'prepared' && expires !== undefined) parts.push(`expires in ${duration(expires - now)}`);
    return el('p', 'job-times', parts.join(' · '));
  }

  private confirmation(): HTMLElement {
    return el(
      'div',
      'confirm',
      el('span', undefined, 'Cancel this job? Its processes are stopped.'),
      button('Yes, cancel the job', 'danger confirm-yes', () => {
        this.confirming = false;
        void this.call('job_cancel');
      }),
      button('Keep it', 'confirm-no', () => {
        this.confirming = false;
        this.render();
      }),
    );
  }

  private render(): void {
    const j = this.job;
    const exit = typeof j.exit_code === 'number' ? j.exit_code : undefined;
    const tail = this.tail;
    const terminal = j.terminal as { cols?: number } | undefined;
    const screen = tail === undefined ? null : ansiBlock(tail || '(no output yet)', j.tty === true ? 'terminal screen' : 'terminal');
    if (screen && j.tty === true && typeof terminal?.cols === 'number') screen.style.setProperty('--cols', String(terminal.cols));
    const badge = el('span', `state state-${this.state}`, this.state);
    const failed = FAILED.has(this.state) || (exit !== undefined && exit !== 0);
    const outcome: Outcome | undefined =
      exit !== undefined ? { failed, label: `exit ${exit}` } : failed ? { failed, label: str(j.signal) ? `signal ${str(j.signal)}` : this.state.replace('_', ' ') } : undefined;
    const details = [
      str(j.signal) && exit !== undefined ? `signal ${str(j.signal)}` : undefined,
      str(j.termination_reason) ? str(j.termination_reason) : undefined,
      j.cancel_requested === true && ACTIVE.has(this.state) ? 'cancel requested' : undefined,
    ].filter((d): d is string => d !== undefined);
    const actions =
      this.canCall() && CANCELLABLE.has(this.state)
        ? this.confirming
          ? this.confirmation()
          : el('div', 'actions', button('Cancel job', 'danger cancel', () => ((this.confirming = true), this.render())))
        : null;
    const body = card(
      'job',
      this.tool,
      outcome,
      this.command ? commandBlock(this.command) : null,
      el('div', 'job-head', badge, el('code', 'job-id', str(j.job_id) ?? '')),
      str(j.workdir) ? el('p', 'note', str(j.workdir)!) : null,
      this.times(),
      details.length ? el('p', 'job-details', details.join(' · ')) : null,
      screen,
      j.output_truncated === true ? truncationNote('Only the end of the output is shown.') : null,
      ACTIVE.has(this.state) && !this.canCall() ? el('p', 'note', 'Ask for job_status to follow this job.') : null,
      actions,
      this.problem,
    );
    this.root.replaceChildren(body);
  }
}
