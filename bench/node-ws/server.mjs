// Benchmark peer: Node + `ws`, speaking the bench frames (bench/README.md).
// Auth 7 -> 4, heartbeat 4 -> 4, join 16; POST /api/v1/im/message/send fans
// frame 12 out to a channel's sockets, POST /prompt pushes frames 10 to a
// client's sockets. Each fan-out frame is serialised once into one Buffer
// that every recipient's send shares (ws frames it per socket).
import http from 'node:http';
import { WebSocketServer } from 'ws';

const [host, port] = (process.env.BENCH_ADDR || '127.0.0.1:8092').split(':');
const HEARTBEAT = Buffer.from('{"type":4}');
const clients = new Map(); // token -> Set<ws>
const channels = new Map(); // channel id -> {seq, members: Set<ws>}
let nextPrompt = 0;

const ok = (res, data) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: { code: 10000, msg: 'ok', key: null }, data }));
};
const fail = (res, http, code, msg) => {
  res.writeHead(http, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: { code, msg, key: null }, data: null }));
};
const channel = (id) => {
  let c = channels.get(id);
  if (!c) channels.set(id, (c = { seq: 0, members: new Set() }));
  return c;
};

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString() || '{}'); } catch { return fail(res, 400, 10001, 'bad body'); }
    if (req.method === 'POST' && req.url === '/api/v1/im/message/send') {
      const token = req.headers.token;
      if (!token) return fail(res, 401, 10401, 'no token');
      if (typeof body.channel_id !== 'string') return fail(res, 400, 10001, 'bad body');
      const c = channel(body.channel_id);
      c.seq += 1;
      const frame = Buffer.from(JSON.stringify({ type: 12, content: { channel_id: body.channel_id, seq: c.seq, sender: token, content: body.content } }));
      for (const ws of c.members) ws.send(frame, { binary: false });
      return ok(res, { seq: c.seq });
    }
    if (req.method === 'POST' && req.url === '/prompt') {
      const updates = body.updates ?? 1, rate = body.rate ?? 10;
      if (typeof body.client_id !== 'string' || !(rate > 0)) return fail(res, 400, 10001, 'bad body');
      const id = `p${nextPrompt++}`;
      const start = performance.now();
      let k = 0;
      const tick = () => {
        k += 1;
        const frame = Buffer.from(JSON.stringify({ type: 10, content: { id, progress: k, max: updates } }));
        for (const ws of clients.get(body.client_id) || []) ws.send(frame, { binary: false });
        if (k < updates) setTimeout(tick, Math.max(0, start + (k * 1000) / rate - performance.now()));
      };
      setTimeout(tick, 0);
      return ok(res, { id });
    }
    fail(res, 404, 10404, 'not found');
  });
});

const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
server.on('upgrade', (req, socket, head) => {
  if (!req.url.startsWith('/ws')) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => onSocket(ws));
});

function onSocket(ws) {
  let token = null;
  const joined = [];
  ws.on('message', (data, isBinary) => {
    let f;
    try { f = JSON.parse(data.toString()); } catch { return ws.close(); }
    if (f.type === 7 && token === null && f.token) {
      token = f.token;
      if (!clients.has(token)) clients.set(token, new Set());
      clients.get(token).add(ws);
      ws.send(HEARTBEAT, { binary: false });
    } else if (f.type === 4 && token !== null) {
      ws.send(HEARTBEAT, { binary: false });
    } else if (f.type === 16 && token !== null && typeof f.content?.channel_id === 'string') {
      channel(f.content.channel_id).members.add(ws);
      joined.push(f.content.channel_id);
    } else {
      ws.close();
    }
  });
  ws.on('close', () => {
    if (token !== null) {
      const s = clients.get(token);
      s?.delete(ws);
      if (s && s.size === 0) clients.delete(token);
    }
    for (const id of joined) channels.get(id)?.members.delete(ws);
  });
  ws.on('error', () => {});
}

server.keepAliveTimeout = 60000;
server.listen(Number(port), host, () => console.error(`node-ws listening on ${host}:${port}`));
process.on('SIGTERM', () => process.exit(0));
