import { createHash } from 'node:crypto';

// What a hermes_task call is: its arguments, the prompt the agent reads, the Hermes session it runs
// in, and what makes two calls under one id the same task.

export interface TaskArgs {
  task: string;
  mode: 'sync' | 'async';
  context?: string;
  deliverable?: string;
  constraints?: string[];
  id?: string;
  session?: string;
  agent?: string;
}

/** The Hermes session a task runs in: shared per (agent, session), else private to the task. */
export function sessionIdFor(agent: string, id: string, session: string | undefined): string {
  return session ? `gb-sess-${agent}-${session}` : `gb-task-${id}`;
}

export function prompt(args: TaskArgs, id: string, dir: string): string {
  const parts = [`## Task\n${args.task}`];
  if (args.context) parts.push(`## Context\n${args.context}`);
  if (args.deliverable) parts.push(`## Deliverable\n${args.deliverable}`);
  if (args.constraints?.length) parts.push(`## Constraints\n${args.constraints.map((c) => `- ${c}`).join('\n')}`);
  parts.push(`## Task record\nTask id: ${id}\nTask directory: ${dir} (write any artifact files here; the requester reads them with hermes_files)`);
  return parts.join('\n\n');
}

/** What makes two hermes_task calls under one id the same task (the agent is checked separately). */
export function taskFingerprint(args: TaskArgs): string {
  const task = { task: args.task, context: args.context ?? null, deliverable: args.deliverable ?? null, constraints: args.constraints ?? [], session: args.session ?? null };
  return createHash('sha256').update(JSON.stringify(task)).digest('hex');
}
