// A real SMTP server for the browser tests: backend/tests/api/smtp_server.py
// (Python's aiosmtpd from PyPI, in .venv-test; scripts/lib.sh installs it)
// on a free port. Each received mail is a JSON file {to, from, subject,
// message_id, text, html} in a temporary folder, read by `mailsTo`.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WEB_DIR } from './backend.mjs';

const SCRIPT = path.join(WEB_DIR, '..', 'backend', 'tests', 'api', 'smtp_server.py');

function python() {
  return process.env.EASEL_TEST_SMTP_PYTHON ?? path.join(WEB_DIR, '..', '.venv-test', 'bin', 'python');
}

/** @returns {Promise<{port: number, env: Record<string, string>, mailsTo: (to: string) => Promise<any[]>, stop: () => Promise<void>}>} */
export async function startSmtp() {
  const dir = await mkdtemp(path.join(tmpdir(), 'easel-e2e-mail-'));
  const child = spawn(python(), [SCRIPT, dir, '0'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the SMTP server exited (code ${code}); is aiosmtpd in .venv-test?`)));
  });

  async function mailsTo(to) {
    const names = (await readdir(dir)).filter((n) => /^\d+\.json$/.test(n));
    names.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    const mails = await Promise.all(names.map(async (n) => JSON.parse(await readFile(path.join(dir, n), 'utf8'))));
    return mails.filter((m) => m.to.includes(to));
  }

  async function stop() {
    process.removeListener('exit', killOnExit);
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }

  return {
    port,
    env: {
      EASEL_SMTP_HOST: '127.0.0.1',
      EASEL_SMTP_PORT: String(port),
      EASEL_SMTP_TLS: 'none',
      EASEL_MAIL_FROM: 'Easel <no-reply@easel.test>',
    },
    mailsTo,
    stop,
  };
}
