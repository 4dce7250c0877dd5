// Starts the fake Stripe (tests/fakes/stripe_fake.py, Python's standard
// library only) for browser tests: a random port, the test's keys. Its
// hosted checkout page (/pay/{id}, buttons #pay and #cancel) sends signed
// webhooks to the backend and redirects the browser back, as Stripe does.
import { spawn } from 'node:child_process';
import path from 'node:path';

import { WEB_DIR } from './backend.mjs';

export const STRIPE_KEY = 'sk_test_e2e';
export const STRIPE_WHSEC = 'whsec_e2e';

/** The EASEL_* settings that point the backend at a started fake. */
export function stripeEnv(fake) {
  return {
    EASEL_STRIPE_SECRET_KEY: STRIPE_KEY,
    EASEL_STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    EASEL_STRIPE_API_URL: fake.url,
  };
}

/**
 * @returns {Promise<{url: string, configure: (backendUrl: string) => Promise<void>, stop: () => void}>}
 */
export async function startStripeFake() {
  const script = path.resolve(WEB_DIR, '..', 'tests', 'fakes', 'stripe_fake.py');
  const child = spawn(
    'python3',
    [script, '--port', '0', '--api-key', STRIPE_KEY, '--webhook-secret', STRIPE_WHSEC],
    { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the fake Stripe did not start: ${out}`)), 20_000);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /listening on (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`the fake Stripe exited (${code}): ${out}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async configure(backendUrl) {
      const res = await fetch(`${url}/_test/config`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ webhook_url: new URL('/api/v1/payment/webhook/stripe', backendUrl).href }),
      });
      if (!res.ok) throw new Error(`configuring the fake Stripe: ${res.status}`);
    },
    stop() {
      process.removeListener('exit', killOnExit);
      child.kill('SIGKILL');
    },
  };
}
