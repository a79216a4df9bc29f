import { timingSafeEqual } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';

// The gateway end of the connections zygote-forked execute_code units make back to it (a process
// the gateway did not spawn cannot be handed file descriptors, so it connects instead): one Unix
// socket per gateway, in the private (0700) state directory and itself 0600. Every connection
// opens with a fixed-size preamble — a kind byte, the unit's id and its one-time token — and is
// handed to the unit that expects it only if the token matches (constant-time compare) and that
// kind is still missing. Anything else — unknown id, wrong token, a kind already connected, a unit
// no longer expected, a preamble that does not arrive in time — is closed at once.

/** What a unit connection carries: the script's stdin+stdout, its stderr, or the frame channel. */
export type UnitConnectionKind = 'o' | 'e' | 'f';

const UNIT_ID_CHARS = 16;
const UNIT_TOKEN_CHARS = 43; // 32 random bytes, base64url
const PREAMBLE_BYTES = 1 + UNIT_ID_CHARS + UNIT_TOKEN_CHARS;
/** Linux `sun_path` holds 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

interface ExpectedUnit {
  token: string;
  /** Takes the authenticated connection (`rest`: bytes that came after the preamble); false refuses it. */
  attach(kind: UnitConnectionKind, socket: Socket, rest: Buffer): boolean;
}

export class UnitConnectionServer {
  private readonly expected = new Map<string, ExpectedUnit>();

  private constructor(
    private readonly server: Server,
    readonly path: string,
    private readonly preambleTimeoutMs: number,
  ) {}

  static async listen(path: string, preambleTimeoutMs: number): Promise<UnitConnectionServer> {
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) throw new Error(`unit socket path is longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${path}`);
    const server = createServer();
    const self = new UnitConnectionServer(server, path, preambleTimeoutMs);
    server.on('connection', (socket) => self.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', () => {});
    await chmod(path, 0o600);
    return self;
  }

  /** Accepts connections for unit `id` until `forget(id)`. */
  expect(id: string, unit: ExpectedUnit): void {
    this.expected.set(id, unit);
  }

  forget(id: string): void {
    this.expected.delete(id);
  }

  private accept(socket: Socket): void {
    socket.on('error', () => {});
    let head: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), this.preambleTimeoutMs);
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      if (head.length < PREAMBLE_BYTES) return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (!this.hand(socket, head)) socket.destroy();
    };
    const onClose = () => clearTimeout(timer);
    socket.on('data', onData);
    socket.on('close', onClose);
  }

  private hand(socket: Socket, head: Buffer): boolean {
    const kind = String.fromCharCode(head[0]!);
    if (kind !== 'o' && kind !== 'e' && kind !== 'f') return false;
    const id = head.toString('latin1', 1, 1 + UNIT_ID_CHARS);
    const unit = this.expected.get(id);
    if (!unit) return false;
    const token = head.subarray(1 + UNIT_ID_CHARS, PREAMBLE_BYTES);
    const want = Buffer.from(unit.token, 'latin1');
    if (want.length !== token.length || !timingSafeEqual(want, token)) return false;
    return unit.attach(kind, socket, head.subarray(PREAMBLE_BYTES));
  }

  async close(): Promise<void> {
    this.expected.clear();
    this.server.close(); // stops listening now; connections still open end with their units
    await rm(this.path, { force: true });
  }
}
