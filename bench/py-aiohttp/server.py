"""Benchmark peer shaped like ComfyUI's server: aiohttp, one `/ws` socket per
client and `POST /prompt` whose progress is pushed to that client's sockets.

It speaks the bench frames (bench/README.md): auth 7 -> 4 (the token is the
client id; ComfyUI's `?clientId=` query is accepted too), heartbeat 4 -> 4,
join 16; `POST /api/v1/im/message/send` fans frame 12 out to a channel and
`POST /prompt` pushes `updates` frames 10 at `rate` per second. Each fan-out
frame is serialised once and the same bytes go to every socket
(`send_frame`, aiohttp >= 3.11)."""

import asyncio
import itertools
import json
import os
import signal

from aiohttp import WSMsgType, web

HEARTBEAT = b'{"type":4}'
MAX_FRAME = 64 * 1024

clients: dict[str, set[web.WebSocketResponse]] = {}
channels: dict[str, dict] = {}
prompt_ids = itertools.count()


def envelope(data, http=200, code=10000, msg="ok"):
    return web.json_response(
        {"status": {"code": code, "msg": msg, "key": None}, "data": data}, status=http
    )


def channel(cid):
    c = channels.get(cid)
    if c is None:
        c = channels[cid] = {"seq": 0, "members": set()}
    return c


async def send_text(ws, data: bytes):
    try:
        await ws.send_frame(data, WSMsgType.TEXT)
    except (ConnectionResetError, RuntimeError):
        pass


async def ws_handler(request):
    ws = web.WebSocketResponse(max_msg_size=MAX_FRAME, compress=False)
    await ws.prepare(request)
    token = None
    joined = []
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            try:
                f = json.loads(msg.data)
            except ValueError:
                break
            kind = f.get("type")
            if kind == 7 and token is None and f.get("token"):
                token = request.query.get("clientId") or f["token"]
                clients.setdefault(token, set()).add(ws)
                await send_text(ws, HEARTBEAT)
            elif kind == 4 and token is not None:
                await send_text(ws, HEARTBEAT)
            elif kind == 16 and token is not None and isinstance((f.get("content") or {}).get("channel_id"), str):
                cid = f["content"]["channel_id"]
                channel(cid)["members"].add(ws)
                joined.append(cid)
            else:
                break
    finally:
        if token is not None:
            s = clients.get(token)
            if s is not None:
                s.discard(ws)
                if not s:
                    del clients[token]
        for cid in joined:
            channels[cid]["members"].discard(ws)
    return ws


async def send_message(request):
    token = request.headers.get("token")
    if not token:
        return envelope(None, 401, 10401, "no token")
    try:
        body = await request.json()
        cid = body["channel_id"]
    except (ValueError, KeyError, TypeError):
        return envelope(None, 400, 10001, "bad body")
    c = channel(cid)
    c["seq"] += 1
    seq = c["seq"]
    frame = json.dumps(
        {"type": 12, "content": {"channel_id": cid, "seq": seq, "sender": token, "content": body.get("content")}},
        separators=(",", ":"),
    ).encode()
    for ws in list(c["members"]):
        await send_text(ws, frame)
    return envelope({"seq": seq})


async def push_progress(pid, client_id, updates, rate):
    loop = asyncio.get_running_loop()
    start = loop.time()
    for k in range(1, updates + 1):
        delay = start + (k - 1) / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        frame = json.dumps(
            {"type": 10, "content": {"id": pid, "progress": k, "max": updates}}, separators=(",", ":")
        ).encode()
        for ws in list(clients.get(client_id, ())):
            await send_text(ws, frame)


background = set()


async def prompt(request):
    try:
        body = await request.json()
        client_id = body["client_id"]
        updates = int(body.get("updates", 1))
        rate = float(body.get("rate", 10))
    except (ValueError, KeyError, TypeError):
        return envelope(None, 400, 10001, "bad body")
    if not rate > 0:
        return envelope(None, 400, 10001, "rate must be positive")
    pid = f"p{next(prompt_ids)}"
    t = asyncio.create_task(push_progress(pid, client_id, updates, rate))
    background.add(t)
    t.add_done_callback(background.discard)
    return envelope({"id": pid})


def main():
    host, port = os.environ.get("BENCH_ADDR", "127.0.0.1:8094").rsplit(":", 1)
    app = web.Application(client_max_size=MAX_FRAME)
    app.router.add_get("/ws", ws_handler)
    app.router.add_post("/api/v1/im/message/send", send_message)
    app.router.add_post("/prompt", prompt)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(f"py-aiohttp listening on {host}:{port}", flush=True, file=__import__("sys").stderr)
    web.run_app(app, host=host, port=int(port), print=None, access_log=None)


if __name__ == "__main__":
    main()
