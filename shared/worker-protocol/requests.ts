import { messageId, type ProtocolMessages, type ReplyTo, type RequestBody, type RequestType, type WorkerProtocol } from './protocol.js';

// The supervisor's side of request/response over any transport: gives each request an id, matches
// each response to its request by that id (responses may come in any order), and fails every
// request still waiting when the channel ends. The transport sends the stamped message and feeds
// every incoming one to settle().

interface Pending<P extends ProtocolMessages> {
  /** Resolves the request when `message` answers it (its reply type); false otherwise. */
  settle(message: P['fromWorker']): boolean;
  reject(error: Error): void;
}

export class PendingRequests<P extends ProtocolMessages> {
  private readonly pending = new Map<string, Pending<P>>();
  private nextId = 0;
  private closedBy?: () => Error;

  constructor(private readonly protocol: WorkerProtocol<P>) {}

  /**
   * Stamps `body` with a fresh id and registers it; `transmit` sends the stamped message (if it
   * throws, the request fails with that error). Resolves with the response carrying the same id.
   */
  request<K extends RequestType<P>>(body: RequestBody<P, K>, transmit: (message: RequestBody<P, K> & { id: string }) => void): Promise<ReplyTo<P, K>> {
    return new Promise((resolve, reject) => {
      if (this.closedBy) return reject(this.closedBy());
      const id = String(++this.nextId);
      this.pending.set(id, {
        settle: (message) => {
          if (!this.protocol.isReplyTo(body.type, message)) return false;
          resolve(message);
          return true;
        },
        reject,
      });
      try {
        transmit({ ...body, id });
      } catch (e) {
        this.pending.delete(id);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /** Hands an incoming message to the request it answers, if any; true when it was consumed. */
  settle(message: P['fromWorker']): boolean {
    const id = messageId(message);
    if (id === undefined) return false;
    const entry = this.pending.get(id);
    if (!entry || !entry.settle(message)) return false;
    this.pending.delete(id);
    return true;
  }

  /** The channel ended: every waiting request, and any made later, fails with `error()`. */
  close(error: () => Error): void {
    this.closedBy = error;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const entry of waiting) entry.reject(error());
  }

  get size(): number {
    return this.pending.size;
  }
}
