import { createHash, randomUUID } from 'node:crypto';
import type { CamofoxIdentityMode } from './settings.js';

// Owner → Camofox tab binding. Each gateway owner (legacy MCP session or session_open capability)
// is one Hermes "task": it gets its own Camofox identity (userId + sessionKey, derived exactly as
// Hermes' tools/browser_camofox.py and tools/browser_camofox_state.py derive a task's) and its own
// tab, so two owners never act on each other's page. The binding lives only in this process;
// session_close drops it (the Adapter's release hook), as Hermes' soft cleanup drops its entry.

export interface Binding {
  userId: string;
  /** Camofox' tab group; Hermes sends it as `listItemId`. */
  sessionKey: string;
  /** The owner's tab, once browser_navigate (or a console expression) opened one. */
  tabId?: string;
  /** True when the userId is this owner's alone (Hermes' ephemeral default): closing may destroy its context. */
  exclusiveUser: boolean;
}

/** RFC 4122 NAMESPACE_URL, which Hermes' uuid.uuid5 calls use. */
const NAMESPACE_URL = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

/** Python's `uuid.uuid5(NAMESPACE_URL, name).hex`. */
export function uuid5Hex(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE_URL).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return bytes.toString('hex');
}

/**
 * The Hermes task id an owner browses as: a digest of the owner id, so that Hermes' `task_<id[:16]>`
 * session keys of different owners never collide, and no capability id is shown to Camofox.
 */
export function taskIdFor(ownerId: string): string {
  return createHash('sha256').update(ownerId).digest('hex').slice(0, 16);
}

function identityFor(mode: CamofoxIdentityMode, taskId: string): Omit<Binding, 'tabId'> {
  switch (mode.mode) {
    case 'override':
      return { userId: mode.userId, sessionKey: mode.sessionKey ?? `task_${taskId.slice(0, 16)}`, exclusiveUser: false };
    case 'managed':
      return {
        userId: `hermes_${uuid5Hex(`camofox-user:${mode.stateDir}`).slice(0, 10)}`,
        sessionKey: `task_${uuid5Hex(`camofox-session:${mode.stateDir}:${taskId}`).slice(0, 16)}`,
        exclusiveUser: false,
      };
    case 'ephemeral':
      return { userId: `hermes_${randomUUID().replace(/-/g, '').slice(0, 10)}`, sessionKey: `task_${taskId.slice(0, 16)}`, exclusiveUser: true };
  }
}

export class BrowserBindings {
  private readonly bindings = new Map<string, Binding>();

  constructor(private readonly mode: CamofoxIdentityMode) {}

  /** The owner's binding, created (without a tab) on first use. */
  get(ownerId: string): Binding {
    let binding = this.bindings.get(ownerId);
    if (!binding) {
      binding = identityFor(this.mode, taskIdFor(ownerId));
      this.bindings.set(ownerId, binding);
    }
    return binding;
  }

  /** The owner's binding if it has one; never creates. */
  peek(ownerId: string): Binding | undefined {
    return this.bindings.get(ownerId);
  }

  drop(ownerId: string): Binding | undefined {
    const binding = this.bindings.get(ownerId);
    this.bindings.delete(ownerId);
    return binding;
  }

  /** Owners that currently hold a tab (for /healthz). */
  get boundTabs(): number {
    let n = 0;
    for (const b of this.bindings.values()) if (b.tabId) n++;
    return n;
  }
}
