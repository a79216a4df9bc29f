import { FrameDecoder, type Frame, type FrameError } from './frame.js';

// What a worker kind's protocol is, independent of any one kind and of the transport (today the
// fd-3 pipe of a spawned worker). A kind declares three things as TypeScript types: the messages
// the supervisor sends it, the messages it sends back, and which of the former are requests,
// answered by one message of the latter carrying the same `id`. defineProtocol() pairs those types
// with their runtime shadow, the sets of message type names, which every incoming frame is checked
// against: a type the kind does not speak is a protocol violation, handled like a malformed frame
// (the channel fails once and that worker is closed), so a handler that switches on `type` sees
// only messages its kind can send. Field shapes are not re-validated: both ends are this package's
// own code (or workers/execute/unit.py, which mirrors execute.ts by hand).
//
// The supervisor pairs each request it sends with its reply by that id (PendingRequests, at the end).
//
// A new worker kind adds a module beside terminal.ts, execute.ts and
// process.ts: its message types, one defineProtocol() call naming every type in each direction and
// each request's response type, and an entry in the supervisor's worker table
// (WorkerProtocols in supervisor/platform/spawning/worker-runtime.ts); its worker starts with
// runWorker() in the same protocol (workers/runtime/run-worker.ts). Messages must be type aliases,
// not interfaces, so that they are assignable to Frame.

/** The message types of one worker kind, by direction. */
export interface ProtocolMessages {
  /** Supervisor → worker. */
  toWorker: Frame;
  /** Worker → supervisor. */
  fromWorker: Frame;
  /** For each request type (a toWorker message with an `id`), the fromWorker message answering it. */
  replies: Record<string, Frame & { id: string }>;
}

/** The type names of the requests of protocol P. */
export type RequestType<P extends ProtocolMessages> = keyof P['replies'] & P['toWorker']['type'];

/** What a caller gives to send request K: the message without its `id` (the channel assigns it). */
export type RequestBody<P extends ProtocolMessages, K extends RequestType<P>> = { type: K } & Omit<Extract<P['toWorker'], { type: K }>, 'id' | 'type'>;

/** The message answering request K. */
export type ReplyTo<P extends ProtocolMessages, K extends RequestType<P>> = P['replies'][K];

type TypeNames<M extends Frame> = Record<M['type'], true>;

export interface WorkerProtocol<P extends ProtocolMessages> {
  /** The worker kind, for messages (`a terminal worker`). */
  readonly kind: string;
  isToWorker(frame: Frame): frame is P['toWorker'];
  isFromWorker(frame: Frame): frame is P['fromWorker'];
  /** Whether `message` is of the type that answers requests of type `request` (ids are matched by the caller). */
  isReplyTo<K extends RequestType<P>>(request: K, message: P['fromWorker']): message is ReplyTo<P, K>;
}

/**
 * One worker kind's protocol. The type-name tables are exhaustive by construction (a
 * Record over each union's `type`), so adding a message type without listing it does not compile.
 */
export function defineProtocol<P extends ProtocolMessages>(
  kind: string,
  names: { toWorker: TypeNames<P['toWorker']>; fromWorker: TypeNames<P['fromWorker']>; replies: { [K in RequestType<P>]: P['replies'][K]['type'] } },
): WorkerProtocol<P> {
  const toWorker = new Set<string>(Object.keys(names.toWorker));
  const fromWorker = new Set<string>(Object.keys(names.fromWorker));
  return {
    kind,
    isToWorker: (frame): frame is P['toWorker'] => toWorker.has(frame.type),
    isFromWorker: (frame): frame is P['fromWorker'] => fromWorker.has(frame.type),
    isReplyTo: <K extends RequestType<P>>(request: K, message: P['fromWorker']): message is ReplyTo<P, K> => names.replies[request] === message.type,
  };
}

/**
 * A frame decoder that delivers only messages `accepts` knows; any other type fails the channel
 * exactly like a malformed frame (reported once through `onError`, nothing delivered after it).
 */
export function messageDecoder<M extends Frame>(
  accepts: (frame: Frame) => frame is M,
  onMessage: (message: M) => void,
  onError: (error: FrameError) => void,
  maxBytes: number,
): FrameDecoder {
  const decoder = new FrameDecoder(
    (frame) => (accepts(frame) ? onMessage(frame) : decoder.reject(`incoming frame has unknown type ${JSON.stringify(frame.type).slice(0, 80)}`)),
    onError,
    maxBytes,
  );
  return decoder;
}

/** The `id` of a message that carries one (requests and their responses). */
export function messageId(message: Frame): string | undefined {
  return typeof message.id === 'string' ? message.id : undefined;
}

/** Every worker kind announces that it is up and listening with this message. */
export type ReadyMessage = { type: 'ready' };

// ---------------------------------------------------------------------------------------------
// Requests and their replies, paired by id
// ---------------------------------------------------------------------------------------------

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
