import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { ensurePackage, NGINX } from '../../scripts/test-prerequisites.js';
import { waitFor } from './wait.js';

// A real nginx (Debian's package) as the TLS-terminating reverse proxy in front of a test gateway:
// its own prefix, config, pid and logs in a temp directory, `daemon off` and no master process so
// the one child is the server, on an ephemeral loopback port, stopped by its pid. It forwards the
// public Host, as cloudflared and Tailscale Funnel do. The certificate is a throw-away self-signed
// one for `name` made with openssl; a Node client trusts it through NODE_EXTRA_CA_CERTS.

export interface TestProxy {
  port: number;
  /** The PEM certificate (also the CA to trust). */
  certFile: string;
  publicUrl: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { cert, key };
}

/**
 * nginx on 127.0.0.1:`port` (pick one with freePort() when the gateway must know its public URL first).
 * `server`, given the throw-away certificate, returns the `server { … }` block to use instead of the
 * built-in one (a documented block with its address, certificate and upstream filled in).
 */
export async function startProxy(dir: string, name: string, upstreamPort: number, port: number, server?: (tls: { cert: string; key: string }) => string): Promise<TestProxy> {
  const nginx = ensurePackage(NGINX);
  const { cert, key } = makeCertificate(dir, name);
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  ${server ? server({ cert, key }) : `server {
    listen 127.0.0.1:${port} ssl;
    server_name ${name};
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_buffering off;
    }
  }`}
}
`,
  );
  const child: ChildProcess = spawn(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitFor(async () => child.exitCode === null && (await accepting(port)), 10_000, `nginx on 127.0.0.1:${port}`);
  } catch (e) {
    child.kill('SIGKILL');
    let log = '';
    try {
      log = readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {}
    throw new Error(`${(e as Error).message}: ${stderr} ${log}`);
  }
  return {
    port,
    certFile: cert,
    publicUrl: `https://${name}:${port}`,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        // SIGQUIT is nginx's graceful stop; the one process (no master) exits on it.
        process.kill(child.pid, 'SIGQUIT');
        const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
