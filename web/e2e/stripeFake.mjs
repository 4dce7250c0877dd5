// Starts the fake Stripe (tests/fakes/stripe_fake.py, see tests/fakes/README.md) for browser
// tests: a free port (`--port 0`), the given API key and webhook secret; resolves once it
// printed `listening on PORT`. `configure` points its webhooks at the backend.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { WEB_DIR } from './backend.mjs';

const READY_TIMEOUT_MS = 20_000;

/** The fake's script: $EASEL_STRIPE_FAKE, else tests/fakes/stripe_fake.py of the repository. */
export function stripeFakeScript() {
  return process.env.EASEL_STRIPE_FAKE ?? path.resolve(WEB_DIR, '..', 'tests', 'fakes', 'stripe_fake.py');
}

/**
 * @param {{apiKey: string, webhookSecret: string}} keys
 * @returns {Promise<{url: string, output: () => string, configure: (webhookUrl: string) => Promise<void>, requests: () => Promise<any[]>, stop: () => Promise<void>}>}
 */
export async function startStripeFake({ apiKey, webhookSecret }) {
  const child = spawn(process.env.PYTHON ?? 'python3', [stripeFakeScript(), '--port', '0', '--api-key', apiKey, '--webhook-secret', webhookSecret], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stdout = '';
  let stderr = '';
  const output = () => `--- stripe fake stdout ---\n${stdout}\n--- stripe fake stderr ---\n${stderr}`;
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Stripe fake did not listen within ${READY_TIMEOUT_MS} ms\n${output()}`)), READY_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      const match = /listening on (\d+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolve(Number(match[1]));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the Stripe fake exited before it listened (code ${code}, signal ${signal})\n${output()}`));
    });
  }).catch((e) => {
    child.kill('SIGKILL');
    process.removeListener('exit', killOnExit);
    throw e;
  });
  const url = `http://127.0.0.1:${port}`;

  async function configure(webhookUrl) {
    const res = await fetch(`${url}/_test/config`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ webhook_url: webhookUrl }),
    });
    if (!res.ok) throw new Error(`Stripe fake /_test/config answered ${res.status}: ${await res.text()}`);
  }

  async function requests() {
    const res = await fetch(`${url}/_test/requests`);
    return res.json();
  }

  async function stop() {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  }

  return { url, output, configure, requests, stop };
}
