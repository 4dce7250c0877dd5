// Benchmark peer: Node socket.io with rooms. The bench frames travel as the
// payload of one socket.io event, "frame": the client emits {type: 7, token}
// and gets {type: 4}, heartbeats 4 -> 4, joins a room with
// {type: 16, content: {channel_id}}. POST /api/v1/im/message/send emits
// frame 12 to the channel's room and POST /prompt emits frames 10 to the
// room "client:<token>". A room broadcast encodes the packet once and
// writes the same encoded bytes to every member (socket.io's adapter).
import http from 'node:http';
import { Server } from 'socket.io';

const [host, port] = (process.env.BENCH_ADDR || '127.0.0.1:8093').split(':');
const seqs = new Map(); // channel id -> last seq
let nextPrompt = 0;

const ok = (res, data) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: { code: 10000, msg: 'ok', key: null }, data }));
};
const fail = (res, http, code, msg) => {
  res.writeHead(http, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: { code, msg, key: null }, data: null }));
};

const server = http.createServer();
const io = new Server(server, { serveClient: false, perMessageDeflate: false, httpCompression: false, transports: ['websocket'], maxHttpBufferSize: 64 * 1024 });

server.on('request', (req, res) => {
  if (req.url.startsWith('/socket.io/')) return; // socket.io answers these
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString() || '{}'); } catch { return fail(res, 400, 10001, 'bad body'); }
    if (req.method === 'POST' && req.url === '/api/v1/im/message/send') {
      const token = req.headers.token;
      if (!token) return fail(res, 401, 10401, 'no token');
      if (typeof body.channel_id !== 'string') return fail(res, 400, 10001, 'bad body');
      const seq = (seqs.get(body.channel_id) || 0) + 1;
      seqs.set(body.channel_id, seq);
      io.to(`ch:${body.channel_id}`).emit('frame', { type: 12, content: { channel_id: body.channel_id, seq, sender: token, content: body.content } });
      return ok(res, { seq });
    }
    if (req.method === 'POST' && req.url === '/prompt') {
      const updates = body.updates ?? 1, rate = body.rate ?? 10;
      if (typeof body.client_id !== 'string' || !(rate > 0)) return fail(res, 400, 10001, 'bad body');
      const id = `p${nextPrompt++}`;
      const start = performance.now();
      let k = 0;
      const tick = () => {
        k += 1;
        io.to(`client:${body.client_id}`).emit('frame', { type: 10, content: { id, progress: k, max: updates } });
        if (k < updates) setTimeout(tick, Math.max(0, start + (k * 1000) / rate - performance.now()));
      };
      setTimeout(tick, 0);
      return ok(res, { id });
    }
    fail(res, 404, 10404, 'not found');
  });
});

io.on('connection', (socket) => {
  let token = null;
  socket.on('frame', (f) => {
    if (f?.type === 7 && token === null && f.token) {
      token = f.token;
      socket.join(`client:${token}`);
      socket.emit('frame', { type: 4 });
    } else if (f?.type === 4 && token !== null) {
      socket.emit('frame', { type: 4 });
    } else if (f?.type === 16 && token !== null && typeof f.content?.channel_id === 'string') {
      socket.join(`ch:${f.content.channel_id}`);
    } else {
      socket.disconnect(true);
    }
  });
});

server.keepAliveTimeout = 60000;
server.listen(Number(port), host, () => console.error(`node-socketio listening on ${host}:${port}`));
process.on('SIGTERM', () => process.exit(0));
