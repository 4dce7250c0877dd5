#!/usr/bin/env python3
"""Writes docs/benchmarks.md from the JSON records of scripts/bench.

Each record is one run of one scenario against one server: the driver's
report (`easel-harness --json` or the socket.io driver, same shape) plus the
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

SERVERS = ["easel", "easel-redis", "easel-2node", "bare-tungstenite", "bare-actix", "node-ws", "node-socketio", "py-aiohttp", "py-socketio"]
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
    extra = lambda k: (r.get(k) or {}) if isinstance(r.get(k), dict) else {}
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
            driver_late_p99_ms=extra("send_lateness_ms").get("p99") if extra("send_lateness_ms").get("count") else None,
            cpu_us_per_frame=per(cpu, c.get("heartbeat_acks"), 1e6),
        )
    elif sc in ("progress", "watchers"):
        # Fan-out: measured (server emission time `ts` to receipt) when the
        # frames carry `ts`, else the aligned estimate (the baselines).
        est = extra("fanout_delay_ms")
        measured = extra("emit_to_receipt_ms")
        fan = measured if measured.get("count") else est
        f.update(
            frames=c.get("frames"),
            sockets=c.get("sockets"),
            lost=c.get("lost", 0),
            out_of_order=c.get("out_of_order", 0),
            seq_gaps=c.get("seq_gaps", 0) + c.get("seq_out_of_order", 0),
            fanout_p50_ms=fan.get("p50") if fan.get("count") else None,
            fanout_p99_ms=fan.get("p99") if fan.get("count") else None,
            # 1 when measured: the median over runs stays a number.
            fanout_measured=(1 if measured.get("count") else 0) if fan.get("count") else None,
            fanout_est_p99_ms=est.get("p99") if est.get("count") else None,
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
    elif sc == "chat":
        first = extra("first_token_ms")
        jit = extra("jitter_ms")
        f.update(
            tokens=c.get("tokens"),
            tokens_per_sec=r.get("tokens_per_sec"),
            first_token_p99_ms=first.get("p99") if first.get("count") else None,
            jitter_p99_ms=jit.get("p99") if jit.get("count") else None,
            effective_interval_ms=r.get("effective_interval_ms"),
            lost=c.get("lost", 0) + c.get("unclosed_replies", 0) + c.get("seq_gaps", 0),
            out_of_order=c.get("out_of_order", 0) + c.get("seq_out_of_order", 0) + c.get("duplicates", 0),
            refused=c.get("refused", 0) + c.get("refused_busy", 0) + c.get("refused_rate_limited", 0)
            + c.get("failed_sends", 0),
            cpu_us_per_frame=per(cpu, c.get("tokens"), 1e6),
        )
    elif sc == "create":
        # Refusals broken down (older reports only have the totals).
        f.update(
            accepted=c.get("accepted"),
            throughput=r.get("throughput_per_sec"),
            offered=r.get("rate"),
            refused=c.get("refused", 0) + c.get("failed", 0),
            rate_limited=c.get("refused_rate_limited"),
            no_credits=c.get("refused_no_credits"),
            refused_other=c.get("refused_other"),
            failed=c.get("failed"),
            unsent=c.get("unsent"),
            cpu_us_per_frame=per(cpu, c.get("accepted"), 1e6),
        )
    elif sc == "soak":
        f.update(
            duration_s=r.get("duration_secs"),
            memory_growth_pct=r.get("memory_growth_pct"),
            idle_lost=c.get("idle_lost"),
            progress_lost=c.get("progress_lost"),
            channel_lost=c.get("channel_lost"),
            lost=c.get("lost"),
            channel_delivered=c.get("channel_delivered"),
            progress_frames=c.get("progress_frames"),
        )
    elif sc == "feed":
        reads = c.get("reads_ok")
        own = r.get("cpu_us_per_page")
        errors = r.get("errors") if isinstance(r.get("errors"), dict) else {}
        rate_limited = sum(v for k, v in errors.items() if k.endswith(".rate_limited"))
        f.update(
            reads_per_sec=r.get("reads_per_sec"),
            offered=r.get("rate"),
            max_ms=lat.get("max"),
            # The driver's own figure covers the load window only; else the whole run's.
            cpu_us_per_page=own if isinstance(own, (int, float)) else per(cpu, reads, 1e6),
            writes_per_sec=r.get("writes_per_sec"),
            write_rate=r.get("write_rate"),
            write_p99_ms=extra("write_latency_ms").get("p99") if extra("write_latency_ms").get("count") else None,
            read_errors=c.get("read_errors", 0),
            write_errors=c.get("write_errors", 0),
            rate_limited=rate_limited,
            writes_skipped=c.get("writes_skipped", 0),
        )
    elif sc == "video":
        wall = extra("task_wall_ms")
        at_size = r.get("video_secs_at_size")
        f.update(
            videos=c.get("videos"),
            video_secs=at_size,
            window_s=r.get("window_secs"),
            cpu_own_s=r.get("server_cpu_own_secs"),
            cpu_children_s=r.get("server_cpu_children_secs"),
            # Recomputed from the parts, so an older report without the figure still has it.
            video_per_cpu=per(at_size, cpu),
            wall_p50_s=per(wall.get("p50"), 1000.0) if wall.get("count") else None,
            wall_max_s=per(wall.get("max"), 1000.0) if wall.get("count") else None,
            failed=c.get("failed", 0) + c.get("refused", 0) + c.get("timed_out", 0),
            unreadable=c.get("unreadable_videos", 0) + c.get("wrong_size", 0),
        )
    elif sc == "upload":
        mib = 1024.0 * 1024.0
        rss = lambda k: per(r.get(k), mib)
        before, peak = r.get("rss_before_bytes"), r.get("rss_peak_bytes")
        f.update(
            size_mib=per(r.get("bytes"), mib),
            mb_per_sec=r.get("mb_per_sec"),
            mib_per_sec=r.get("mib_per_sec"),
            put_p50_ms=lat.get("p50"),
            put_p99_ms=lat.get("p99"),
            join_ms=r.get("join_ms"),
            rss_before_mib=rss("rss_before_bytes"),
            rss_peak_mib=rss("rss_peak_bytes"),
            rss_after_mib=rss("rss_after_bytes"),
            rss_growth_mib=per(peak - before, mib) if before is not None and peak is not None else None,
            rss_samples=r.get("rss_samples"),
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
            na = next((r["na"] for r in rs if r.get("na")), None)
            if na:
                out[sc][name] = {"na": na}
                continue
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
             ("p99_ms", "ack p99 ms"), ("driver_late_p99_ms", "driver lateness p99 ms"),
             ("auth_all_ms", "auth all ms"), ("cpu_us_per_frame", "CPU µs/ack"),
             ("failed", "failed")],
    "progress": [("frames", "frames"), ("p50_ms", "create→final p50 ms"), ("p99_ms", "create→final p99 ms"),
                 ("cpu_us_per_frame", "CPU µs/frame"), ("lost", "lost"), ("out_of_order", "out of order")],
    "channel": [("deliveries_per_sec", "deliveries/s"), ("delivered_pct", "delivered %"), ("p50_ms", "p50 ms"),
                ("p99_ms", "p99 ms"), ("cpu_us_per_frame", "CPU µs/delivery"), ("lost", "lost"),
                ("out_of_order", "out of order")],
    "chat": [("tokens", "tokens"), ("tokens_per_sec", "tokens/s"), ("p50_ms", "added p50 ms"),
             ("p99_ms", "added p99 ms"), ("first_token_p99_ms", "first token p99 ms"),
             ("jitter_p99_ms", "jitter p99 ms"), ("effective_interval_ms", "effective interval ms"),
             ("cpu_us_per_frame", "CPU µs/token"), ("lost", "lost"), ("out_of_order", "out of order"),
             ("refused", "refused")],
    "create": [("offered", "offered/s"), ("throughput", "creates/s"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
               ("cpu_us_per_frame", "CPU µs/create"), ("rate_limited", "refused: rate limit"),
               ("no_credits", "refused: credits"), ("refused_other", "refused: other"),
               ("failed", "timed out or failed"), ("unsent", "not sent (deadline)")],
    "soak": [("duration_s", "seconds"), ("memory_growth_pct", "memory growth %"), ("idle_lost", "idle lost"),
             ("progress_lost", "progress lost"), ("channel_lost", "channel lost"),
             ("progress_frames", "progress frames"), ("channel_delivered", "channel deliveries"),
             ("p99_ms", "channel p99 ms")],
    "feed": [("offered", "offered reads/s"), ("reads_per_sec", "reads/s"), ("p50_ms", "page p50 ms"),
             ("p99_ms", "page p99 ms"), ("max_ms", "page max ms"), ("cpu_us_per_page", "CPU µs/page"),
             ("write_rate", "offered writes/s"), ("writes_per_sec", "writes/s"), ("write_p99_ms", "write p99 ms"),
             ("read_errors", "read errors"), ("write_errors", "write errors"),
             ("rate_limited", "of which rate-limited"), ("writes_skipped", "writes skipped")],
}
COLUMNS["video"] = [("videos", "videos"), ("video_secs", "seconds of video"), ("window_s", "window s"),
                    ("cpu_s", "server CPU s"), ("cpu_children_s", "of which ffmpeg s"),
                    ("video_per_cpu", "s of video per CPU s"), ("wall_p50_s", "task wall p50 s"),
                    ("wall_max_s", "task wall max s"), ("failed", "failed, refused or timed out"),
                    ("unreadable", "unreadable or wrong size")]
COLUMNS["upload"] = [("size_mib", "file MiB"), ("mb_per_sec", "MB/s end to end"), ("mib_per_sec", "MiB/s"),
                     ("put_p50_ms", "part PUT p50 ms"), ("put_p99_ms", "part PUT p99 ms"), ("join_ms", "join ms"),
                     ("cpu_s", "server CPU s"), ("rss_before_mib", "RSS before MiB"),
                     ("rss_peak_mib", "RSS peak MiB"), ("rss_after_mib", "RSS after MiB"),
                     ("rss_growth_mib", "peak − before MiB"), ("rss_samples", "RSS samples")]
for _k in ("progress",):
    COLUMNS[_k] = COLUMNS[_k][:3] + [("fanout_p50_ms", "fan-out p50 ms"), ("fanout_p99_ms", "fan-out p99 ms"),
                                      ("fanout_measured", "fan-out is")] \
        + COLUMNS[_k][3:] + [("seq_gaps", "seq gaps")]
COLUMNS["watchers"] = [("sockets", "sockets")] + COLUMNS["progress"]
# The figure each scenario's ratios compare.
RATIO_KEY = {"idle": "bytes_per_session", "progress": "cpu_us_per_frame", "watchers": "cpu_us_per_frame",
             "channel": "cpu_us_per_frame"}


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def cell(key, row):
    """One table cell: the figure, or for `fanout_measured` what the fan-out columns are."""
    if key == "fanout_measured":
        v = row.get(key)
        return "–" if v is None else ("measured (server ts)" if v >= 0.5 else "estimate")
    return fmt(row.get(key))


def table(sc, rows):
    cols = COLUMNS.get(sc, [])
    names = [n for n in SERVERS if n in rows] + sorted(n for n in rows if n not in SERVERS)
    key = RATIO_KEY.get(sc)
    easel = rows.get("easel", {}).get(key) if key else None
    head = ["server"] + [h for _, h in cols] + ([f"Easel ÷ this ({key})"] if key else []) + ["runs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in names:
        r = rows[n]
        if "na" in r:
            lines.append("| " + " | ".join([n, f"n/a ({r['na']})"] + [""] * (len(head) - 2)) + " |")
            continue
        if "error" in r:
            lines.append("| " + " | ".join([n, f"**failed**: {r['error']}"] + [""] * (len(head) - 2)) + " |")
            continue
        cells = [n] + [cell(k, r) for k, _ in cols]
        if key:
            cells.append(fmt(ratio(easel, r.get(key))) if n != "easel" else "1.00")
        cells.append(fmt(r.get("runs")))
        lines.append("| " + " | ".join(cells) + " |")
        if r.get("note"):
            lines.append(f"| ↳ {n}: {r['note']} |" + " |" * (len(head) - 1))
    return "\n".join(lines)


def verdict(ok, reason=None):
    if ok is None:
        return "not measured" + (f": {reason}" if reason else "")
    return "**met**" if ok else "**missed**"


# A soak shorter than this does not judge the soak target (issue 8: 30 minutes).
SOAK_TARGET_SECS = 1800
# The feed target's load (issue 15): page reads and writes per second.
FEED_READS = 1000
FEED_WRITES = 200


def targets(s):
    """Issue 8 item 4 and issue 15's feed target, judged on the medians: rows of (target, Easel's figure, verdict)."""
    g = lambda sc, n, k: (s.get(sc, {}).get(n) or {}).get(k)
    ran = lambda sc, n: bool(s.get(sc, {}).get(n)) and "error" not in s[sc][n] and "na" not in s[sc][n]
    out = []

    def row(name, value, ok, reason=None):
        out.append((name, value, verdict(ok, None if ok is not None else reason)))

    why_idle = "idle did not run against easel"
    mem = g("idle", "easel", "bytes_per_session")
    actix_mem = g("idle", "bare-actix", "bytes_per_session")
    row("idle: ≤ 20 KB per session", fmt(mem and mem / 1024) + " KB", None if mem is None else mem <= 20 * 1024,
        why_idle)
    r = ratio(mem, actix_mem)
    row("idle: ≤ 1.25× bare actix-ws memory per session", fmt(r) + "×", None if r is None else r <= 1.25,
        why_idle if mem is None else "no bare-actix figure")
    p99 = g("idle", "easel", "p99_ms")
    row("idle: heartbeat-ack p99 ≤ 5 ms", fmt(p99) + " ms", None if p99 is None else p99 <= 5, why_idle)

    why_prog = "progress did not run against easel"
    def basis(n):
        m = g("progress", n, "fanout_measured")
        return "measured: server emission to receipt" if m is not None and m >= 0.5 \
            else "estimate, see progress notes"

    fan = g("progress", "easel", "fanout_p99_ms")
    row("progress: fan-out p99 ≤ 10 ms in-process", fmt(fan) + (f" ms ({basis('easel')})" if fan is not None else " ms"),
        None if fan is None else fan <= 10,
        "needs the pacer engine (BENCH_ENGINE=pacer) or server timestamps" if ran("progress", "easel") else why_prog)
    fan_r = g("progress", "easel-redis", "fanout_p99_ms")
    row("progress: fan-out p99 ≤ 15 ms through Redis",
        fmt(fan_r) + (f" ms ({basis('easel-redis')})" if fan_r is not None else " ms"),
        None if fan_r is None else fan_r <= 15,
        "needs the pacer engine or server timestamps" if ran("progress", "easel-redis")
        else "easel-redis did not run progress")
    cpu = g("progress", "easel", "cpu_us_per_frame")
    floors = [g("progress", f, "cpu_us_per_frame") for f in FLOORS]
    floors = [f for f in floors if f]
    floor = min(floors) if floors else None
    r = ratio(cpu, floor)
    row("progress: CPU per frame ≤ 2× the bare floor", fmt(r) + "×", None if r is None else r <= 2,
        why_prog if cpu is None else "no bare floor figure")
    peers = {p: g("progress", p, "cpu_us_per_frame") for p in PROGRESS_BEAT}
    known = {p: v for p, v in peers.items() if v}
    beat = None if cpu is None or not known else all(cpu < v for v in known.values())
    row("progress: CPU per frame below every Python and socket.io peer",
        ", ".join(f"{p} {fmt(ratio(cpu, v))}×" for p, v in known.items()) or "–", beat,
        why_prog if cpu is None else "no peer figure")
    for sc in ("progress", "watchers"):
        lost = g(sc, "easel", "lost")
        ooo = g(sc, "easel", "out_of_order")
        gaps = g(sc, "easel", "seq_gaps")
        row(f"{sc}: no frame lost or out of order",
            f"lost {fmt(lost)}, out of order {fmt(ooo)}, seq gaps {fmt(gaps)}",
            None if lost is None else (lost == 0 and (ooo or 0) == 0 and (gaps or 0) == 0),
            f"{sc} did not run against easel")

    why_ch = "channel did not run against easel"
    dps = g("channel", "easel", "deliveries_per_sec")
    pct = g("channel", "easel", "delivered_pct")
    p99 = g("channel", "easel", "p99_ms")
    row("channel: 100,000 deliveries/s", fmt(dps) + "/s", None if dps is None else dps >= 100_000 * 0.98, why_ch)
    row("channel: 100% delivered", fmt(pct) + " %", None if pct is None else pct >= 100, why_ch)
    row("channel: p99 ≤ 10 ms", fmt(p99) + " ms", None if p99 is None else p99 <= 10, why_ch)
    r = ratio(g("channel", "easel", "cpu_us_per_frame"), g("channel", "bare-actix", "cpu_us_per_frame"))
    row("channel: CPU per delivery ≤ 1.3× bare actix-ws", fmt(r) + "×", None if r is None else r <= 1.3,
        why_ch if dps is None else "no bare-actix figure")

    for name, label in (("easel", "create: ≥ 20,000 task creates/s on one core (embedded store; fsync settings above)"),
                        ("easel-redis", "create: the same with Redis in the path")):
        tput = g("create", name, "throughput")
        offered = g("create", name, "offered")
        value = f"{fmt(tput)}/s" + (f" of {fmt(offered)}/s offered" if offered is not None else "")
        if tput is not None and tput < 20_000 * 0.98 and offered is not None and offered < 20_000:
            # A server that kept up with a lower offered rate says nothing about 20,000/s.
            row(label, value, None, f"offered only {fmt(offered)}/s (BENCH_CREATE_RATE)")
        else:
            row(label, value, None if tput is None else tput >= 20_000 * 0.98,
                f"create did not run against {name}")

    secs = g("soak", "easel", "duration_s")
    growth = g("soak", "easel", "memory_growth_pct")
    lost = g("soak", "easel", "lost")
    value = f"{fmt(secs)} s: growth {fmt(growth)} %, lost {fmt(lost)}"
    if secs is None:
        row("soak: 30 min, memory growth < 5 %, nothing lost", value, None, "soak did not run against easel")
    elif secs < SOAK_TARGET_SECS:
        row("soak: 30 min, memory growth < 5 %, nothing lost", value, None,
            f"ran {fmt(secs)} s, not 30 min (BENCH_SOAK_SECS=1800 runs it)")
    else:
        row("soak: 30 min, memory growth < 5 %, nothing lost", value,
            None if growth is None or lost is None else (growth < 5 and lost == 0), "no memory samples")
    if secs is not None and secs < SOAK_TARGET_SECS and growth is not None and lost is not None:
        row(f"soak (short, {fmt(secs)} s): memory growth < 5 %, nothing lost", value, growth < 5 and lost == 0)

    reads = g("feed", "easel", "reads_per_sec")
    offered = g("feed", "easel", "offered")
    writes = g("feed", "easel", "writes_per_sec")
    write_rate = g("feed", "easel", "write_rate")
    p99 = g("feed", "easel", "p99_ms")
    label = "feed: p99 ≤ 20 ms at 1,000 page reads/s on one core while 200 writes/s go on"
    value = f"p99 {fmt(p99)} ms at {fmt(reads)} reads/s with {fmt(writes)} writes/s"
    if reads is None or p99 is None:
        row(label, value, None, "feed did not run against easel")
    elif (offered is not None and offered < FEED_READS) or (write_rate is not None and write_rate < FEED_WRITES):
        # A lighter load says nothing about the target's.
        row(label, value, None, f"offered only {fmt(offered)} reads/s and {fmt(write_rate)} writes/s "
                                "(BENCH_FEED_RATE, BENCH_FEED_WRITE_RATE)")
    else:
        row(label, value, p99 <= 20 and reads >= FEED_READS * 0.98 and (writes or 0) >= FEED_WRITES * 0.98)

    lines = ["| target | Easel | verdict |", "|---|---|---|"]
    lines += [f"| {t} | {v} | {ok} |" for t, v, ok in out]
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

Servers: **easel** (`easel serve`, embedded store, in-process bus; pacer engine and scripted chat
model, see the notes), **easel-redis** (the same with `EASEL_REDIS`: bus and queue in Redis) and
**easel-2node** (two `easel serve` nodes on one `easel store-serve`, Redis for bus and queue, Debian's
nginx in front; the driver targets nginx, so sockets and requests are spread over both nodes; every
process on the server core and their CPU summed); the floors
**bare-tungstenite** (tokio + tokio-tungstenite, 4 KiB buffers) and **bare-actix**
(actix-web + actix-ws), both with no business logic; the peers **node-ws** (Node `ws`),
**node-socketio** (socket.io rooms), **py-aiohttp** (aiohttp shaped like ComfyUI's `/ws` +
`POST /prompt`) and **py-socketio** (python-socketio, shaped like InvokeAI's event server).
The socket.io peers are driven by `bench/node-socketio/driver.mjs` (socket.io has its own
wire protocol); the others by `easel-harness --protocol bare`. See `bench/README.md`.
"""

NOTES = {
    "idle": "Sessions authenticated and held with one heartbeat per second, each session on its own "
            "timetable with the sessions' phases spread evenly over the second; ack latency from each "
            "beat's intended send time. *Driver lateness* is the driver's own delay from the intended to "
            "the actual send (timer rounding, a busy driver core): an ack tail that matches it is the "
            "driver's, not the server's. Memory is the server's RSS growth per session while they connect, each run on a freshly started server.",
    "progress": "Easel: tasks created over REST run on the pacer engine (`EASEL_ENGINE=pacer`: a progress "
                "report every 1000/update_rate ms for `updates` steps and a 1×1 PNG, no picture work; "
                "load testing only), so CPU per frame is the fan-out path, comparable with the baselines, "
                "whose `POST /prompt` pushes `updates` frames at `update_rate`. *create→final* runs from the "
                "create's intended time to the final frame, so it includes the task's own duration. "
                "*Fan-out* is measured where the frames say when the server emitted them (Easel stamps "
                "every push with `ts`, the publisher's time in µs): receipt on the driver's wall clock "
                "minus `ts`, same machine, so it includes the bus, the socket actors, the write and the "
                "driver's read (*fan-out is*: measured). The baselines send no timestamp, so for them it "
                "is an estimate: each task's paced frames are aligned on its best frame (receipt − k × "
                "step, minimum over the task's frames on all its sockets) and each frame's delay above "
                "that anchor is reported, a lower bound of emission-to-receipt latency that shows "
                "queueing and jitter but not the fixed transit of the best frame (*fan-out is*: "
                "estimate). The run stops creating at the end of the load window, then waits until "
                "every accepted task has ended (at most one task's length + 5 s): a task not ended "
                "by then is *lost*. *Seq gaps*: numbers skipped in Easel's per-user "
                "push sequence. easel-redis: the same with the bus and queue in Redis. easel-2node: the same "
                "through nginx to two nodes on one store server (a user's creates and sockets may land "
                "on different nodes; every push crosses Redis).",
    "watchers": "The progress load with `watchers` extra sockets per user, all of the same account: "
                "every socket must receive every frame of its user's tasks.",
    "channel": "Members' sockets in K channels; messages posted over REST by a few senders on a fixed "
               "timetable; latency from each message's intended send time to its receipt on every member. "
               "easel-2node: members' sockets and the senders' posts spread over two nodes by nginx, "
               "sequence numbers taken by compare-and-set on the one store server.",
    "chat": "Easel only (`EASEL_LLM=scripted`: one word per delta, one delta every interval). C sessions "
            "over enough accounts to stay under 30 model calls a minute each; messages on a fixed "
            "timetable; frames 11 read on the owner's socket. *Added latency*: each token's receipt "
            "minus its intended emission, start + k × interval, with start = the chat/start call's "
            "intended send time. The model really starts later (after the server stores the message), "
            "and its interval sleeps one after another, so timer rounding and per-token work add up "
            "over a reply (*effective interval* is the measured slope): both make added latency an "
            "upper bound. *Jitter* is the lower bound: each token's delay above the reply's best-aligned "
            "token. *Lost* counts missing per-reply seqs, replies never closed and push-sequence gaps.",
    "create": "REST task creates (`/api/v1/task/create`) at a fixed offered rate over a few accounts "
              "(latency from the intended send time); the tasks then run on the pacer engine. The server runs "
              "with its per-account create limit raised (`EASEL_TASK_CREATES_PER_MIN`, see the settings) and "
              "ample sign-up credits, so the figures measure the create path and the store, not the limiter. "
              "The sender stops at the end of the load window: creates it could not send by then (too many "
              "in flight) are *not sent*. A throughput equal to the offered rate means the server kept up. "
              "easel-redis: bus and queue in Redis, store still embedded.",
    "soak": "idle + progress + channel at once against one server; the server's RSS sampled every few "
            "seconds; growth from the first sample after the warm-up to the last one inside the load window.",
    "feed": "Easel only. The square is filled before the server starts (`easel seed-square`: works and "
            "accounts written straight into the embedded store, see the settings). The driver signs up its "
            "own accounts, each following a few authors, and makes the finished tasks its publishes need, "
            "all before the window. Then feed pages (`square/v3/recommend` and `square/v3/artwork/list`, the "
            "orders recommend, follows, hot and new in rotation, a quarter of the reads following a page's "
            "`next_cursor`) are read on a fixed timetable while likes (or their undo), comments and publishes "
            "go on at their own rate, spread over the accounts; the server's per-account square write limit "
            "is raised (`EASEL_SQUARE_WRITES_PER_MIN`). *Page* latency runs from each read's intended send "
            "time to its answer; *CPU µs/page* is the server's CPU over the window, writes included, divided "
            "by the pages read. *Reads/s* and *writes/s* count answered calls.",
    "video": "Easel only, on the reference engine (non-neural: classical frames encoded by Debian's ffmpeg, "
             "x264 `veryfast`, run as child processes of the server and so pinned to its core, plus the "
             "poster and the HLS renditions of every video). One user makes text-to-video tasks at "
             "1280×720 (16:9, the model in the settings), a few at a time, one after another for the window; "
             "the lanes then finish the task they run. *Seconds of video* is read from each downloaded MP4's "
             "header (mvhd duration; the tkhd size must be 1280×720). *Server CPU* is the server's utime + "
             "stime plus its waited-for children's (ffmpeg) from the first create to the last task's end; "
             "*s of video per CPU s* divides the two. *Task wall* runs from the create to the final status.",
    "upload": "Easel only. One generated file (incompressible bytes, made 20 MiB part by part just before "
              "each PUT: the driver never holds the file) through the chunked upload: `resource/pre-sign/get` "
              "as `audio/mp4` in category 59 (audio: the server stores and joins it without ffprobe; "
              "generated bytes are no video, and a real video of 1 GiB was not made for the bench), then per "
              "part a PUT to its pre-signed URL and `confirmPart`, one part after another, then `confirm`, "
              "which joins the parts in the object store (*join*). *MB/s* (10^6 bytes) runs from pre-sign to "
              "confirm answered. The server's RSS is sampled every 100 ms over the same span.",
}
ORDER = ["idle", "progress", "watchers", "channel", "chat", "create", "soak", "feed", "video", "upload"]


def render(summary, command, settings, durability="", analysis=""):
    parts = [INTRO, f"**Machine:** {machine()}", "", f"**Command:** `{command}`", "",
             f"**Settings:** {settings}", ""]
    if durability:
        parts += [f"**Durability (fsync) settings:** {durability}", ""]
    for sc in ORDER + sorted(k for k in summary if k not in ORDER):
        if sc not in summary:
            continue
        parts += [f"## {sc}", "", NOTES.get(sc, ""), "", table(sc, summary[sc]), ""]
    parts += ["## Targets (issue 8 item 4; feed: issue 15)", "", targets(summary), ""]
    if analysis.strip():
        parts += ["## Why Easel misses what it misses", "", analysis.strip(), ""]
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="scripts/bench")
    ap.add_argument("--settings", default="")
    ap.add_argument("--durability", default="")
    ap.add_argument("--analysis", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md"),
                    help="hand-written analysis of the misses, appended after the targets (if the file exists)")
    a = ap.parse_args()
    analysis = ""
    if a.analysis and os.path.exists(a.analysis):
        with open(a.analysis) as f:
            analysis = f.read()
    text = render(summarise(load(a.results)), a.command, a.settings, a.durability, analysis)
    with open(a.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
