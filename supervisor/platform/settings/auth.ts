import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parsePublicUrls } from './public-origin.js';

// What authentication reads from the environment. The gateway (through loadConfig) and the
// operator CLI both call authSettings, so they always agree on the database and audit paths.

export interface AuthConfig {
  /** HERMES_MCP_PUBLIC_URL: the https origin(s) a tunnel or reverse proxy serves this gateway under. */
  publicUrls: readonly URL[];
  /** Whether every /mcp request needs a credential: always with a public URL; HERMES_MCP_AUTH=on without one. */
  required: boolean;
  /** The gateway's own OAuth authorization server (HERMES_MCP_OAUTH, default on with a public URL; needs one). */
  oauth: boolean;
  /**
   * Browser origins accepted beside the loopback and public names (HERMES_MCP_ALLOWED_ORIGINS, comma
   * list of https origins; default with a public URL: ChatGPT's). Safe because such a request still
   * needs a bearer credential, which a browser never attaches on its own.
   */
  allowedOrigins: readonly string[];
  /** HERMES_MCP_AUTH_DATABASE, default `$HERMES_HOME/gateway-auth.sqlite3`. */
  database: string;
  /** HERMES_MCP_AUTH_AUDIT_LOG, default `$HERMES_HOME/logs/gateway-auth-audit.jsonl`. */
  auditLog: string;
  /** HERMES_MCP_AUTH_PASSPHRASE_FILE: an operator passphrase (0600 file) accepted on the consent page. */
  passphraseFile?: string;
}

const CHATGPT_ORIGINS = ['https://chatgpt.com', 'https://chat.openai.com'];

function onOff(name: string, text: string | undefined): boolean | undefined {
  if (text === undefined || text === '') return undefined;
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new Error(`${name} must be on or off, got ${JSON.stringify(text)}`);
}

function absolute(name: string, text: string): string {
  const p = text === '~' ? homedir() : text.startsWith('~/') ? join(homedir(), text.slice(2)) : text;
  if (!isAbsolute(p)) throw new Error(`${name} must be an absolute path, got ${JSON.stringify(text)}`);
  return resolve(p);
}

function parseOrigins(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((raw) => {
    const url = URL.parse(raw);
    if (!url || url.protocol !== 'https:' || url.origin !== raw.replace(/\/$/, '')) {
      throw new Error(`HERMES_MCP_ALLOWED_ORIGINS: ${JSON.stringify(raw)} must be an https origin such as https://chatgpt.com`);
    }
    return url.origin;
  });
}

/** Throws a message naming the variable when a value is malformed or the combination is unsafe. */
export function authSettings(env: NodeJS.ProcessEnv, hermesHome: string): AuthConfig {
  const publicUrls = parsePublicUrls(env.HERMES_MCP_PUBLIC_URL);
  const auth = onOff('HERMES_MCP_AUTH', env.HERMES_MCP_AUTH);
  const oauth = onOff('HERMES_MCP_OAUTH', env.HERMES_MCP_OAUTH);
  if (publicUrls.length > 0 && auth === false) {
    throw new Error('HERMES_MCP_AUTH=off with HERMES_MCP_PUBLIC_URL set: a public URL is never served without authentication; unset one of them');
  }
  if (publicUrls.length === 0 && oauth === true) {
    throw new Error('HERMES_MCP_OAUTH=on needs HERMES_MCP_PUBLIC_URL: the authorization server is named by the https URL clients reach it under');
  }
  const passphraseFile = env.HERMES_MCP_AUTH_PASSPHRASE_FILE ? absolute('HERMES_MCP_AUTH_PASSPHRASE_FILE', env.HERMES_MCP_AUTH_PASSPHRASE_FILE) : undefined;
  return {
    publicUrls,
    required: publicUrls.length > 0 || auth === true,
    oauth: publicUrls.length > 0 && oauth !== false,
    allowedOrigins: env.HERMES_MCP_ALLOWED_ORIGINS !== undefined ? parseOrigins(env.HERMES_MCP_ALLOWED_ORIGINS) : publicUrls.length > 0 ? CHATGPT_ORIGINS : [],
    database: env.HERMES_MCP_AUTH_DATABASE ? absolute('HERMES_MCP_AUTH_DATABASE', env.HERMES_MCP_AUTH_DATABASE) : join(hermesHome, 'gateway-auth.sqlite3'),
    auditLog: env.HERMES_MCP_AUTH_AUDIT_LOG ? absolute('HERMES_MCP_AUTH_AUDIT_LOG', env.HERMES_MCP_AUTH_AUDIT_LOG) : join(hermesHome, 'logs', 'gateway-auth-audit.jsonl'),
    ...(passphraseFile ? { passphraseFile } : {}),
  };
}
