// The load driver for the socket.io peers (node-socketio and py-socketio).
// `easel-harness` speaks raw WebSocket frames and cannot talk socket.io's own
// protocol (Engine.IO packets around socket.io events), so this driver runs
// the same scenarios with socket.io-client, carrying the same bench frames
// as the payload of the "frame" event, on the same fixed timetable (latency
// from the intended send time, no coordinated omission), and prints the same
// JSON shape as `easel-harness --json`.
//
//   node driver.mjs idle|channel|progress --target http://127.0.0.1:PORT [--json]
//     [--sessions N] [--duration-secs S] [--rate R] [--members M] [--channels K]
//     [--senders S] [--tasks T] [--users U] [--updates U] [--update-rate R]
//     [--server-pid PID]
//
// Caveat: the client side is one Node thread, slower than the Rust harness;
// at high rates the driver itself adds latency (watch max_send_lateness_ms).
import { readFileSync } from 'node:fs';
import { io } from 'socket.io-client';

const args = { sessions: 100, 'duration-secs': 10, members: 100, channels: 1, tasks: 20, users: 4, updates: 20, 'update-rate': 10 };
const argv = process.argv.slice(2);
const scenario = argv.shift();
for (let i = 0; i < argv.length; i++) {
  const k = argv[i].replace(/^--/, '');
  if (k === 'json') args.json = true;
  else args[k] = argv[++i];
}
const num = (k) => Number(args[k]);
const target = args.target;
if (!target || !['idle', 'channel', 'progress'].includes(scenario)) {
  console.error('usage: driver.mjs idle|channel|progress --target URL [...]');
  process.exit(2);
}
const duration = num('duration-secs');
const ANSWER_TIMEOUT = 10000;
const local = /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(target);
const sources = local ? [2, 3, 4, 5, 6, 7, 8, 9].map((d) => `127.0.0.${d}`) : [];

const now = () => performance.now();
const sleepUntil = (t) => new Promise((r) => setTimeout(r, Math.max(0, t - now())));

function summary(samples) {
  if (samples.length === 0) return { p50: 0, p90: 0, p99: 0, max: 0, count: 0 };
  const s = Float64Array.from(samples).sort();
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s[s.length - 1], count: s.length };
}

function rss(pid) {
  if (!pid) return null;
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) * 1024 : null;
  } catch { return null; }
}

/** Opens socket i and authenticates with frame 7; resolves {sock, took}. */
function connect(i, token) {
  const t0 = now();
  return new Promise((resolve, reject) => {
    const opts = { transports: ['websocket'], forceNew: true, reconnection: false, timeout: ANSWER_TIMEOUT };
    if (sources.length) opts.localAddress = sources[i % sources.length];
    const sock = io(target, opts);
    const timer = setTimeout(() => { sock.close(); reject(new Error('auth timed out')); }, ANSWER_TIMEOUT);
    sock.on('connect_error', (e) => { clearTimeout(timer); sock.close(); reject(e); });
    sock.once('connect', () => {
      sock.once('frame', (f) => {
        clearTimeout(timer);
        if (f?.type === 4) resolve({ sock, took: now() - t0 });
        else { sock.close(); reject(new Error(`auth answered ${JSON.stringify(f)}`)); }
      });
      sock.emit('frame', { type: 7, token });
    });
  });
}

async function connectAll(n, tokenOf) {
  const out = [], errors = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      try { out.push({ i, ...(await connect(i, tokenOf(i))) }); } catch (e) { errors.push(String(e?.message || e)); }
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  out.sort((a, b) => a.i - b.i);
  return { socks: out, errors };
}

async function post(path, token, body) {
  const res = await fetch(target + path, { method: 'POST', headers: { 'content-type': 'application/json', token }, body: JSON.stringify(body), signal: AbortSignal.timeout(ANSWER_TIMEOUT) });
  const env = await res.json();
  if (env?.status?.code !== 10000) { const e = new Error(`api ${res.status}`); e.refused = true; throw e; }
  return env.data;
}

function report(fields) {
  const r = { scenario, target, sessions: Number(fields.sessions), duration_secs: duration, rate: Number(fields.rate), elapsed_secs: fields.elapsed, counts: fields.counts, latency_ms: fields.latency, ...fields.extra };
  if (args.json) console.log(JSON.stringify(r));
  else {
    console.log(`socket.io driver ${scenario} -> ${target} (${duration} s, rate ${r.rate}, ${r.elapsed_secs.toFixed(2)} s elapsed)`);
    for (const [k, v] of Object.entries(r.counts)) console.log(`  ${k.padEnd(24)} ${String(v).padStart(12)}`);
    const l = r.latency_ms;
    console.log(`  ${'latency ms'.padEnd(24)} p50 ${l.p50.toFixed(3)}  p90 ${l.p90.toFixed(3)}  p99 ${l.p99.toFixed(3)}  max ${l.max.toFixed(3)}  (n=${l.count})`);
    for (const [k, v] of Object.entries(fields.extra)) console.log(`  ${k.padEnd(24)} ${JSON.stringify(v)}`);
  }
}

async function idle() {
  const rate = Number(args.rate ?? 1);
  const n = num('sessions');
  const pid = num('server-pid') || null;
  const before = rss(pid);
  const started = now();
  const { socks, errors } = await connectAll(n, () => 'bench-idle');
  const authAll = now() - started;
  const after = rss(pid);
  const holdStart = now();
  const end = holdStart + duration * 1000;
  const lat = [], authLat = socks.map((s) => s.took);
  let sent = 0, late = 0, maxLate = 0, timeouts = 0;
  await Promise.all(socks.map(async ({ sock }, idx) => {
    const phase = (1000 / rate) * (idx / Math.max(1, socks.length));
    for (let i = 0; ; i++) {
      const intended = holdStart + phase + (i * 1000) / rate;
      if (intended >= end) break;
      await sleepUntil(intended);
      const lateness = Math.max(0, now() - intended);
      sent++; if (lateness > 1) late++; maxLate = Math.max(maxLate, lateness);
      const acked = await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ANSWER_TIMEOUT);
        sock.once('frame', () => { clearTimeout(timer); resolve(true); });
        sock.emit('frame', { type: 4 });
      });
      if (!acked) { timeouts++; break; }
      lat.push(now() - intended);
    }
    sock.close();
  }));
  const extra = { auth_all_ms: authAll, auth_latency_ms: summary(authLat), max_send_lateness_ms: maxLate,
    server_memory: { pid, rss_before_bytes: before, rss_after_bytes: after,
      bytes_per_session: before !== null && after !== null && socks.length ? Math.floor(Math.max(0, after - before) / socks.length) : null } };
  if (errors.length) extra.first_error = errors[0];
  report({ sessions: n, rate, elapsed: (now() - started) / 1000, latency: summary(lat), extra,
    counts: { authenticated: socks.length, failed: errors.length, heartbeats_sent: sent, heartbeat_acks: lat.length, heartbeat_timeouts: timeouts, late_sends: late } });
}

async function channel() {
  const rate = Number(args.rate ?? 100);
  const k = Math.max(1, num('channels')), m = Math.max(1, num('members'));
  const senders = Math.max(1, Number(args.senders ?? Math.ceil(rate / (k * 8))));
  const runId = Date.now().toString(36);
  const { socks, errors } = await connectAll(k * m, (i) => `bench-member-${i}`);
  // Socket i is a member of channel i % k; the join is done once the
  // heartbeat sent after it is answered (frames are handled in order).
  const perSocket = socks.map(({ sock, i }) => ({ sock, ch: i % k, lastSeq: 0, seen: new Set(), dup: 0, ooo: 0, lat: [] }));
  await Promise.all(perSocket.map((s) => new Promise((resolve) => {
    s.sock.emit('frame', { type: 16, content: { channel_id: `c${runId}-${s.ch}` } });
    s.sock.once('frame', resolve);
    s.sock.emit('frame', { type: 4 });
  })));
  const started = now();
  const count = Math.ceil(duration * rate);
  const intended = (i) => started + (i * 1000) / rate;
  for (const s of perSocket) {
    s.sock.on('frame', (f) => {
      if (f?.type !== 12) return;
      const at = now();
      const idx = /^h(\d+)$/.exec(f.content?.content ?? '');
      if (f.content.seq <= s.lastSeq) s.ooo++; else s.lastSeq = f.content.seq;
      if (!idx) return;
      const i = Number(idx[1]);
      if (s.seen.has(i)) { s.dup++; return; }
      s.seen.add(i);
      s.lat.push(at - intended(i));
    });
  }
  const accepted = new Set();
  let refused = 0, failed = 0, late = 0, maxLate = 0, sent = 0;
  const pending = [];
  for (let i = 0; i < count; i++) {
    await sleepUntil(intended(i));
    const lateness = Math.max(0, now() - intended(i));
    sent++; if (lateness > 1) late++; maxLate = Math.max(maxLate, lateness);
    const ch = i % k, sender = Math.floor(i / k) % senders;
    pending.push(post('/api/v1/im/message/send', `bench-sender-${sender}`, { channel_id: `c${runId}-${ch}`, content: `h${i}` })
      .then(() => accepted.add(i), (e) => { if (e.refused) refused++; else failed++; }));
  }
  await Promise.all(pending);
  // Wait for the last deliveries (up to the answer timeout).
  const perCh = new Array(k).fill(0);
  for (const i of accepted) perCh[i % k]++;
  const expected = perSocket.reduce((n, s) => n + perCh[s.ch], 0);
  const delivered = () => perSocket.reduce((n, s) => { let c = 0; for (const i of s.seen) if (accepted.has(i)) c++; return n + c; }, 0);
  const drainEnd = now() + ANSWER_TIMEOUT;
  while (now() < drainEnd && perSocket.reduce((n, s) => n + s.seen.size, 0) < expected) await sleepUntil(now() + 50);
  const elapsed = (now() - started) / 1000;
  const got = delivered();
  const lat = perSocket.flatMap((s) => s.lat);
  for (const s of perSocket) s.sock.close();
  const extra = { delivered_pct: expected ? (100 * got) / expected : 0, deliveries_per_sec: got / Math.max(1e-9, elapsed), max_send_lateness_ms: maxLate };
  if (errors.length) extra.first_error = errors[0];
  report({ sessions: perSocket.length, rate, elapsed, latency: summary(lat), extra,
    counts: { members: perSocket.length, channels: k, senders, sent, accepted: accepted.size, refused, failed_sends: failed,
      expected_deliveries: expected, delivered: got, lost: expected - got,
      duplicates: perSocket.reduce((n, s) => n + s.dup, 0), out_of_order: perSocket.reduce((n, s) => n + s.ooo, 0), late_sends: late } });
}

async function progress() {
  const rate = Number(args.rate ?? 10);
  const users = Math.max(1, num('users')), tasks = num('tasks'), updates = Math.max(1, num('updates')), urate = num('update-rate');
  const { socks, errors } = await connectAll(users, (i) => `bench-client-${i}`);
  const state = new Map(); // task id -> {frames, last, ooo, endedAt}
  let foreign = 0;
  for (const { sock } of socks) {
    sock.on('frame', (f) => {
      if (f?.type !== 10) return;
      const at = now();
      let t = state.get(f.content.id);
      if (!t) state.set(f.content.id, (t = { frames: 0, last: 0, ooo: 0, endedAt: null, ours: false }));
      t.frames++;
      if (f.content.progress <= t.last) t.ooo++; else t.last = f.content.progress;
      if (f.content.progress >= f.content.max && t.endedAt === null) t.endedAt = at;
    });
  }
  const started = now();
  const deadline = started + duration * 1000;
  const created = [];
  let refused = 0, failedCreates = 0, maxLate = 0;
  const pending = [];
  for (let i = 0; i < tasks; i++) {
    const intended = started + (i * 1000) / rate;
    await sleepUntil(intended);
    maxLate = Math.max(maxLate, now() - intended);
    pending.push(post('/prompt', '', { client_id: `bench-client-${i % users}`, updates, rate: urate })
      .then((d) => created.push({ id: d.id, intended }), (e) => { if (e.refused) refused++; else failedCreates++; }));
  }
  await Promise.all(pending);
  const allEnded = () => created.every((c) => state.get(c.id)?.endedAt != null);
  while (now() < deadline && !allEnded()) await sleepUntil(now() + 20);
  const elapsed = (now() - started) / 1000;
  const ours = new Set(created.map((c) => c.id));
  let frames = 0, ooo = 0, succeeded = 0;
  for (const [id, t] of state) {
    if (!ours.has(id)) { foreign += t.frames; continue; }
    frames += t.frames; ooo += t.ooo; if (t.endedAt !== null) succeeded++;
  }
  const lat = created.filter((c) => state.get(c.id)?.endedAt != null).map((c) => state.get(c.id).endedAt - c.intended);
  for (const { sock } of socks) sock.close();
  const extra = { frames_per_sec: frames / Math.max(1e-9, elapsed), max_send_lateness_ms: maxLate, updates_per_task: updates, update_rate: urate };
  if (errors.length) extra.first_error = errors[0];
  report({ sessions: users, rate, elapsed, latency: summary(lat), extra,
    counts: { created: created.length, refused, failed_creates: failedCreates, frames, out_of_order: ooo, succeeded, failed_tasks: 0, lost: created.length - succeeded, foreign_frames: foreign } });
}

const run = { idle, channel, progress }[scenario];
const hard = setTimeout(() => { console.error('driver: hard deadline passed'); process.exit(3); }, (duration * 2 + 120) * 1000);
run().then(() => { clearTimeout(hard); process.exit(0); }, (e) => { console.error(`driver: ${e?.stack || e}`); process.exit(1); });
