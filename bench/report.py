#!/usr/bin/env python3
"""Writes docs/benchmarks.md from the JSON records of scripts/bench.

Each record is one run of one scenario against one server: the driver's
report (`easel harness --json` or the socket.io driver, same shape) plus the
server's CPU and RSS sampled from /proc around the run. Per server and
scenario the report takes the median over runs, computes CPU-µs per
delivered frame and memory per session, and sets Easel beside every
baseline with the ratios and the targets of issue 8 item 4.

Standard library only. Tested by bench/test_report.py.
"""

import argparse
import glob
import json
import os
import platform
import statistics
import subprocess

SERVERS = ["easel", "bare-tungstenite", "bare-actix", "node-ws", "node-socketio", "py-aiohttp", "py-socketio"]
FLOORS = ["bare-tungstenite", "bare-actix"]
PEERS = ["node-ws", "node-socketio", "py-aiohttp", "py-socketio"]
# Peers CPU per progress frame must beat (issue 8 item 4: "every Python and socket.io peer").
PROGRESS_BEAT = ["node-socketio", "py-aiohttp", "py-socketio"]


def load(results_dir):
    recs = []
    for p in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        try:
            with open(p) as f:
                recs.append(json.load(f))
        except (OSError, ValueError):
            continue
    return recs


def cpu_secs(rec):
    """The server's CPU over the load window when the driver measured it,
    else over the whole driver run (set-up included)."""
    r = rec.get("report") or {}
    if isinstance(r.get("server_cpu_secs"), (int, float)):
        return float(r["server_cpu_secs"])
    p = rec.get("proc") or {}
    if p.get("cpu_before") is not None and p.get("cpu_after") is not None:
        return max(0.0, p["cpu_after"] - p["cpu_before"])
    return None


def per(a, b, scale=1.0):
    if a is None or not b:
        return None
    return a * scale / b


def figures(rec):
    """The figures of one run that the tables show."""
    r = rec.get("report")
    if not r:
        return None
    c = r.get("counts", {})
    lat = r.get("latency_ms", {})
    sc = rec["scenario"]
    cpu = cpu_secs(rec)
    f = {"p50_ms": lat.get("p50"), "p99_ms": lat.get("p99"), "cpu_s": cpu}
    if sc == "idle":
        mem = (r.get("server_memory") or {}).get("bytes_per_session")
        if mem is None:
            p = rec.get("proc") or {}
            if p.get("rss_after") is not None and p.get("rss_before") is not None:
                mem = per(max(0, p["rss_after"] - p["rss_before"]), c.get("authenticated"))
        f.update(
            sessions=c.get("authenticated"),
            failed=c.get("failed", 0) + c.get("heartbeat_timeouts", 0),
            bytes_per_session=mem,
            auth_all_ms=r.get("auth_all_ms"),
            cpu_us_per_frame=per(cpu, c.get("heartbeat_acks"), 1e6),
        )
    elif sc == "progress":
        f.update(
            frames=c.get("frames"),
            lost=c.get("lost", 0),
            out_of_order=c.get("out_of_order", 0),
            cpu_us_per_frame=per(cpu, c.get("frames"), 1e6),
        )
    elif sc == "channel":
        f.update(
            delivered=c.get("delivered"),
            delivered_pct=r.get("delivered_pct"),
            deliveries_per_sec=r.get("deliveries_per_sec"),
            lost=c.get("lost", 0),
            out_of_order=c.get("out_of_order", 0),
            cpu_us_per_frame=per(cpu, c.get("delivered"), 1e6),
        )
    return f


def median_figures(runs):
    keys = set().union(*(r.keys() for r in runs))
    out = {}
    for k in keys:
        vals = [r[k] for r in runs if isinstance(r.get(k), (int, float))]
        out[k] = statistics.median(vals) if vals else None
    out["runs"] = len(runs)
    return out


def summarise(recs):
    """{scenario: {server: figures | {"error": str}}}."""
    by = {}
    for rec in recs:
        by.setdefault(rec.get("scenario"), {}).setdefault(rec.get("server"), []).append(rec)
    out = {}
    for sc, servers in by.items():
        out[sc] = {}
        for name, rs in servers.items():
            figs = [f for f in (figures(r) for r in rs) if f]
            if figs:
                out[sc][name] = median_figures(figs)
                errs = [r.get("error") for r in rs if r.get("error")]
                if errs:
                    out[sc][name]["note"] = f"{len(errs)} run(s) failed: {errs[0]}"
            else:
                err = next((r.get("error") for r in rs if r.get("error")), "no report")
                out[sc][name] = {"error": err}
    return out


def fmt(v, digits=2):
    if v is None:
        return "–"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


COLUMNS = {
    "idle": [("sessions", "sessions"), ("bytes_per_session", "bytes/session"), ("p50_ms", "ack p50 ms"),
             ("p99_ms", "ack p99 ms"), ("auth_all_ms", "auth all ms"), ("cpu_us_per_frame", "CPU µs/ack"),
             ("failed", "failed")],
    "progress": [("frames", "frames"), ("p50_ms", "create→final p50 ms"), ("p99_ms", "create→final p99 ms"),
                 ("cpu_us_per_frame", "CPU µs/frame"), ("lost", "lost"), ("out_of_order", "out of order")],
    "channel": [("deliveries_per_sec", "deliveries/s"), ("delivered_pct", "delivered %"), ("p50_ms", "p50 ms"),
                ("p99_ms", "p99 ms"), ("cpu_us_per_frame", "CPU µs/delivery"), ("lost", "lost"),
                ("out_of_order", "out of order")],
}
# The figure each scenario's ratios compare.
RATIO_KEY = {"idle": "bytes_per_session", "progress": "cpu_us_per_frame", "channel": "cpu_us_per_frame"}


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def table(sc, rows):
    cols = COLUMNS.get(sc, [])
    names = [n for n in SERVERS if n in rows] + sorted(n for n in rows if n not in SERVERS)
    key = RATIO_KEY.get(sc)
    easel = rows.get("easel", {}).get(key) if key else None
    head = ["server"] + [h for _, h in cols] + ([f"Easel ÷ this ({key})"] if key else []) + ["runs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in names:
        r = rows[n]
        if "error" in r:
            lines.append("| " + " | ".join([n, f"**failed**: {r['error']}"] + [""] * (len(head) - 2)) + " |")
            continue
        cells = [n] + [fmt(r.get(k)) for k, _ in cols]
        if key:
            cells.append(fmt(ratio(easel, r.get(key))) if n != "easel" else "1.00")
        cells.append(fmt(r.get("runs")))
        lines.append("| " + " | ".join(cells) + " |")
        if r.get("note"):
            lines.append(f"| ↳ {n}: {r['note']} |" + " |" * (len(head) - 1))
    return "\n".join(lines)


def verdict(ok):
    return "n/a" if ok is None else ("**met**" if ok else "**missed**")


def targets(s):
    """Issue 8 item 4, judged on the medians."""
    g = lambda sc, n, k: (s.get(sc, {}).get(n) or {}).get(k)
    out = []
    mem = g("idle", "easel", "bytes_per_session")
    actix_mem = g("idle", "bare-actix", "bytes_per_session")
    out.append(("idle: ≤ 20 KB per session", fmt(mem and mem / 1024) + " KB",
                None if mem is None else mem <= 20 * 1024))
    r = ratio(mem, actix_mem)
    out.append(("idle: ≤ 1.25× bare actix-ws memory per session", fmt(r) + "×", None if r is None else r <= 1.25))
    p99 = g("idle", "easel", "p99_ms")
    out.append(("idle: heartbeat-ack p99 ≤ 5 ms", fmt(p99) + " ms", None if p99 is None else p99 <= 5))
    cpu = g("progress", "easel", "cpu_us_per_frame")
    floors = [g("progress", f, "cpu_us_per_frame") for f in FLOORS]
    floors = [f for f in floors if f]
    floor = min(floors) if floors else None
    r = ratio(cpu, floor)
    out.append(("progress: CPU per frame ≤ 2× the bare floor", fmt(r) + "×", None if r is None else r <= 2))
    peers = {p: g("progress", p, "cpu_us_per_frame") for p in PROGRESS_BEAT}
    known = {p: v for p, v in peers.items() if v}
    beat = None if cpu is None or not known else all(cpu < v for v in known.values())
    out.append(("progress: CPU per frame below every Python and socket.io peer",
                ", ".join(f"{p} {fmt(ratio(cpu, v))}×" for p, v in known.items()) or "–", beat))
    lost = g("progress", "easel", "lost")
    ooo = g("progress", "easel", "out_of_order")
    out.append(("progress: no frame lost or out of order", f"lost {fmt(lost)}, out of order {fmt(ooo)}",
                None if lost is None else (lost == 0 and (ooo or 0) == 0)))
    out.append(("progress: fan-out p99 ≤ 10 ms in-process, ≤ 15 ms through Redis",
                "not measured here: the progress latency runs from the create to the final frame", None))
    dps = g("channel", "easel", "deliveries_per_sec")
    pct = g("channel", "easel", "delivered_pct")
    p99 = g("channel", "easel", "p99_ms")
    out.append(("channel: 100,000 deliveries/s", fmt(dps) + "/s", None if dps is None else dps >= 100_000 * 0.98))
    out.append(("channel: 100% delivered", fmt(pct) + " %", None if pct is None else pct >= 100))
    out.append(("channel: p99 ≤ 10 ms", fmt(p99) + " ms", None if p99 is None else p99 <= 10))
    r = ratio(g("channel", "easel", "cpu_us_per_frame"), g("channel", "bare-actix", "cpu_us_per_frame"))
    out.append(("channel: CPU per delivery ≤ 1.3× bare actix-ws", fmt(r) + "×", None if r is None else r <= 1.3))
    out.append(("create: ≥ 20,000 task creates/s on one core", "not run by scripts/bench yet", None))
    out.append(("soak: 30 min, memory growth < 5 %, nothing lost", "not run by scripts/bench yet", None))
    lines = ["| target | Easel | verdict |", "|---|---|---|"]
    lines += [f"| {t} | {v} | {verdict(ok)} |" for t, v, ok in out]
    return "\n".join(lines)


def machine():
    model = ""
    try:
        outp = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        model = next((l.split(":", 1)[1].strip() for l in outp.splitlines() if l.startswith("Model name")), "")
    except OSError:
        pass
    return f"{model or platform.processor() or 'unknown CPU'}, {os.cpu_count()} cores, Linux {platform.release()}"


INTRO = """# Benchmarks

Written by `scripts/bench` (`make bench`); do not edit by hand. Easel and the
baselines run the same load on the same machine, one after the other: each server
pinned to one core (`taskset -c 0`), the load driver to the other (`taskset -c 1`).
Figures are medians over the runs. Latencies are measured from the intended send time
of a fixed timetable, so back-pressure shows as latency. CPU is the server's
utime + stime over the load window, divided by the frames it delivered.

Servers: **easel** (`easel serve`, embedded store, in-process bus); the floors
**bare-tungstenite** (tokio + tokio-tungstenite, 4 KiB buffers) and **bare-actix**
(actix-web + actix-ws), both with no business logic; the peers **node-ws** (Node `ws`),
**node-socketio** (socket.io rooms), **py-aiohttp** (aiohttp shaped like ComfyUI's `/ws` +
`POST /prompt`) and **py-socketio** (python-socketio, shaped like InvokeAI's event server).
The socket.io peers are driven by `bench/node-socketio/driver.mjs` (socket.io has its own
wire protocol); the others by `easel harness --protocol bare`. See `bench/README.md`.
"""

NOTES = {
    "idle": "Sessions authenticated and held with one heartbeat per second; memory is the "
            "server's RSS growth per session while they connect.",
    "progress": "Easel: tasks created over REST run on the reference engine and push frames 10 "
                "to their owner; baselines: `POST /prompt` pushes `updates` frames at `update_rate`. "
                "Latency runs from the create's intended time to the final frame, so it includes "
                "the task's own duration; compare CPU per frame across servers.",
    "channel": "Members' sockets in K channels; messages posted over REST by a few senders on a fixed "
               "timetable; latency from each message's intended send time to its receipt on every member.",
}


def render(summary, command, settings):
    parts = [INTRO, f"**Machine:** {machine()}", "", f"**Command:** `{command}`", "",
             f"**Settings:** {settings}", ""]
    for sc in ["idle", "progress", "channel"] + sorted(k for k in summary if k not in ("idle", "progress", "channel")):
        if sc not in summary:
            continue
        parts += [f"## {sc}", "", NOTES.get(sc, ""), "", table(sc, summary[sc]), ""]
    parts += ["## Targets (issue 8 item 4)", "", targets(summary), ""]
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="scripts/bench")
    ap.add_argument("--settings", default="")
    a = ap.parse_args()
    text = render(summarise(load(a.results)), a.command, a.settings)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
