// Starts the real `easel serve` binary for browser tests: a random port
// (EASEL_ADDR=127.0.0.1:0), a fresh data directory, and web/dist as the web
// root. Resolves with the URL the backend prints on stdout once it listens.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The web/ folder. */
export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The backend binary: $EASEL_BIN (a relative path is taken from the directory
 * npm was started in, INIT_CWD, so it means the same from the repo root and
 * from web/), else ../target/debug/easel relative to web/.
 */
export function easelBin() {
  const fromEnv = process.env.EASEL_BIN;
  if (fromEnv) return path.resolve(process.env.INIT_CWD ?? process.cwd(), fromEnv);
  return path.resolve(WEB_DIR, '..', 'target', 'debug', 'easel');
}

const READY_TIMEOUT_MS = 60_000;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * @param {{env?: Record<string, string>}} [options] extra EASEL_* settings
 * @returns {Promise<{url: string, dataDir: string, output: () => string, stop: () => Promise<void>}>}
 */
export async function startBackend(options = {}) {
  const bin = easelBin();
  if (!existsSync(bin)) {
    throw new Error(`backend binary not found at ${bin}: build it (cargo build -p backend) or set EASEL_BIN`);
  }
  const webDist = path.join(WEB_DIR, 'dist');
  if (!existsSync(path.join(webDist, 'index.html'))) {
    throw new Error(`${webDist}/index.html is missing: run npm run build first`);
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'easel-e2e-'));
  const child = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      EASEL_ADDR: '127.0.0.1:0',
      EASEL_DATA: dataDir,
      EASEL_WEB_DIR: webDist,
      NO_COLOR: '1',
      // Task awards (first post of the day, ...) pop up a dialog over the page after a
      // publication; the tests of other features run without them (checkin, engagement turn them on).
      EASEL_TASK_AWARDS: 'off',
      ...(options.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // If the test process dies, take the backend with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stdout = '';
  let stderr = '';
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));

  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`backend printed no http:// URL within ${READY_TIMEOUT_MS} ms\n${output()}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      const match = /http:\/\/\S+/.exec(stdout.replace(ANSI, ''));
      if (!match) return;
      try {
        const origin = new URL(match[0]).origin;
        clearTimeout(timer);
        resolve(`${origin}/`);
      } catch {
        // Not a whole URL yet; wait for more output.
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`backend exited before it was ready (code ${code}, signal ${signal})\n${output()}`));
    });
  }).catch(async (e) => {
    child.kill('SIGKILL');
    process.removeListener('exit', killOnExit);
    await rm(dataDir, { recursive: true, force: true });
    throw e;
  });

  async function stop() {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  }

  return { url, dataDir, output, stop };
}
