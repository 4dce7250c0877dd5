"""Benchmark peer shaped like InvokeAI's event server: python-socketio
(`AsyncServer`, here on aiohttp rather than InvokeAI's ASGI under uvicorn, so
both Python peers share one web stack and the difference measured is
socket.io itself) with rooms.

The bench frames travel as the payload of one socket.io event, "frame":
auth {type: 7, token} -> {type: 4}, heartbeat 4 -> 4, join
{type: 16, content: {channel_id}} enters the channel's room.
`POST /api/v1/im/message/send` emits frame 12 to the room, `POST /prompt`
emits frames 10 to the room "client:<token>". A room emit encodes the packet
once and sends the encoded packet to every participant."""

import asyncio
import itertools
import json
import os
import signal
import sys

import socketio
from aiohttp import web

sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*", transports=["websocket"])
app = web.Application(client_max_size=64 * 1024)
sio.attach(app)

tokens: dict[str, str] = {}  # sid -> token
seqs: dict[str, int] = {}
prompt_ids = itertools.count()
background = set()


def envelope(data, http=200, code=10000, msg="ok"):
    return web.json_response({"status": {"code": code, "msg": msg, "key": None}, "data": data}, status=http)


@sio.on("frame")
async def frame(sid, f):
    if not isinstance(f, dict):
        await sio.disconnect(sid)
        return
    kind = f.get("type")
    token = tokens.get(sid)
    if kind == 7 and token is None and f.get("token"):
        tokens[sid] = f["token"]
        await sio.enter_room(sid, f"client:{f['token']}")
        await sio.emit("frame", {"type": 4}, to=sid)
    elif kind == 4 and token is not None:
        await sio.emit("frame", {"type": 4}, to=sid)
    elif kind == 16 and token is not None and isinstance((f.get("content") or {}).get("channel_id"), str):
        await sio.enter_room(sid, f"ch:{f['content']['channel_id']}")
    else:
        await sio.disconnect(sid)


@sio.event
async def disconnect(sid, *_):
    tokens.pop(sid, None)


async def send_message(request):
    token = request.headers.get("token")
    if not token:
        return envelope(None, 401, 10401, "no token")
    try:
        body = await request.json()
        cid = body["channel_id"]
    except (ValueError, KeyError, TypeError):
        return envelope(None, 400, 10001, "bad body")
    seq = seqs.get(cid, 0) + 1
    seqs[cid] = seq
    await sio.emit(
        "frame",
        {"type": 12, "content": {"channel_id": cid, "seq": seq, "sender": token, "content": body.get("content")}},
        room=f"ch:{cid}",
    )
    return envelope({"seq": seq})


async def push_progress(pid, client_id, updates, rate):
    loop = asyncio.get_running_loop()
    start = loop.time()
    for k in range(1, updates + 1):
        delay = start + (k - 1) / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        await sio.emit("frame", {"type": 10, "content": {"id": pid, "progress": k, "max": updates}}, room=f"client:{client_id}")


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


app.router.add_post("/api/v1/im/message/send", send_message)
app.router.add_post("/prompt", prompt)


def main():
    host, port = os.environ.get("BENCH_ADDR", "127.0.0.1:8095").rsplit(":", 1)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(f"py-socketio listening on {host}:{port}", flush=True, file=sys.stderr)
    web.run_app(app, host=host, port=int(port), print=None, access_log=None)


if __name__ == "__main__":
    main()
