import type { SessionMessage } from '../hermes-api.js';

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The conversation state an async task carries into POST /v1/runs: the session's user and
 * assistant text, in order, the newest `max` messages. Hermes'
 * _handle_runs keeps only `role` and `str(content)` of each conversation_history entry, so what it
 * cannot carry is left out rather than sent mangled: tool results (no tool_call_id: Hermes'
 * repair_message_sequence would drop them as strays), an assistant message's tool_calls (its
 * text, if any, stays), and messages with no text. Content is trimmed as Hermes'
 * get_messages_as_conversation trims it for a chat completion; multi-part content keeps its text parts.
 */
export function runHistory(messages: readonly SessionMessage[], max: number): { history: HistoryMessage[]; omitted: number } {
  const all: HistoryMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const content = textOf(m.content).trim();
    if (content) all.push({ role: m.role, content });
  }
  // No cut to a user turn: a session Hermes' compression continued starts with the summary, often
  // an assistant message, and a chat completion replays it as it is.
  const start = Math.max(0, all.length - max);
  return { history: all.slice(start), omitted: start };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .filter((t) => t !== '')
    .join('\n');
}
