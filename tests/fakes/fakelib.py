"""Shared plumbing of the fake payment providers: form parsing with
bracketed keys, JSON/HTML answers, idempotency, request and event logs,
webhook delivery. Python 3.11 standard library only."""

import json
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def new_id(prefix, n=24):
    return prefix + secrets.token_hex(n // 2)


def now():
    return int(time.time())


def parse_form(body):
    """`a[b][0][c]=v` pairs into nested dicts; dicts whose keys are all
    digits become lists (Stripe's encoding of arrays)."""
    root = {}
    for key, value in urllib.parse.parse_qsl(body, keep_blank_values=True):
        parts = []
        head, _, rest = key.partition("[")
        parts.append(head)
        while rest:
            inner, _, rest = rest.partition("]")
            parts.append(inner)
            rest = rest[1:] if rest.startswith("[") else rest
        node = root
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict):
                nxt = {}
                node[p] = nxt
            node = nxt
        node[parts[-1]] = value
    return _listify(root)


def _listify(v):
    if isinstance(v, dict):
        v = {k: _listify(x) for k, x in v.items()}
        if v and all(k.isdigit() for k in v):
            return [v[k] for k in sorted(v, key=int)]
    return v


class Log:
    """Requests received and events sent, for `/_test/requests|events`."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []
        self.events = []

    def request(self, entry):
        with self.lock:
            self.requests.append(entry)

    def event(self, entry):
        with self.lock:
            self.events.append(entry)

    def snapshot(self):
        with self.lock:
            return list(self.requests), list(self.events)


def post_webhook(url, payload, headers):
    """POSTs `payload` (bytes); answers (status or None, answer body or error)."""
    if not url:
        return None, "no webhook url configured"
    req = urllib.request.Request(url, data=payload, method="POST")
    req.add_header("Content-Type", "application/json; charset=utf-8")
    req.add_header("User-Agent", "easel-fake-provider/1.0")
    for k, v in headers.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)


class Idempotency:
    """Same key (per credential) => the same answer, as the providers do."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = {}
        self.key_locks = {}

    def lock_for(self, key):
        with self.lock:
            return self.key_locks.setdefault(key, threading.Lock())

    def get(self, key):
        with self.lock:
            return self.seen.get(key)

    def put(self, key, answer):
        with self.lock:
            self.seen[key] = answer


def html_page(title, body):
    esc = lambda s: (str(s).replace("&", "&amp;").replace("<", "&lt;")
                     .replace(">", "&gt;").replace('"', "&quot;"))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>%s</title>"
            "</head><body>%s</body></html>" % (esc(title), body)), esc


def send_json(handler, status, obj, extra_headers=None):
    data = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for k, v in (extra_headers or {}).items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(data)


def send_html(handler, status, html):
    data = html.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def redirect(handler, location):
    handler.send_response(303)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def read_body(handler):
    n = int(handler.headers.get("Content-Length") or 0)
    return handler.rfile.read(n).decode("utf-8") if n else ""


def read_json(handler, raw=None):
    raw = read_body(handler) if raw is None else raw
    if not raw.strip():
        return {}
    return json.loads(raw)


def announce(server):
    print("listening on %d" % server.server_address[1], flush=True)
