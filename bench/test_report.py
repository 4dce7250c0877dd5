"""Tests of bench/report.py on synthetic records: `python3 -m unittest bench/test_report.py`."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import report  # noqa: E402


def rec(server, scenario, run, counts, **extra):
    r = {"scenario": scenario, "counts": counts, "latency_ms": {"p50": 1.0, "p99": extra.pop("p99", 2.0)}}
    r.update(extra)
    return {"server": server, "scenario": scenario, "run": run, "exit": 0, "report": r,
            "proc": {"cpu_before": 1.0, "cpu_after": 3.0, "rss_before": 1000, "rss_after": 2000}}


class ReportTest(unittest.TestCase):
    def test_cpu_per_delivery_prefers_the_load_window_and_takes_the_median(self):
        recs = [
            rec("easel", "channel", 1, {"delivered": 1000, "lost": 0}, server_cpu_secs=0.01, delivered_pct=100.0),
            rec("easel", "channel", 2, {"delivered": 1000, "lost": 0}, server_cpu_secs=0.03, delivered_pct=100.0),
            rec("easel", "channel", 3, {"delivered": 1000, "lost": 2}, server_cpu_secs=0.02, delivered_pct=99.8),
            # No window figure: the whole-run /proc delta (2 s) is used.
            rec("bare-actix", "channel", 1, {"delivered": 100000, "lost": 0}, delivered_pct=100.0),
        ]
        s = report.summarise(recs)
        self.assertAlmostEqual(s["channel"]["easel"]["cpu_us_per_frame"], 20.0)
        self.assertEqual(s["channel"]["easel"]["lost"], 0)
        self.assertEqual(s["channel"]["easel"]["runs"], 3)
        self.assertAlmostEqual(s["channel"]["bare-actix"]["cpu_us_per_frame"], 20.0)
        md = report.table("channel", s["channel"])
        self.assertIn("| easel |", md)
        self.assertIn("1.00", md)

    def test_the_two_node_run_is_a_row_of_its_own(self):
        recs = [
            rec("easel", "channel", 1, {"delivered": 1000, "lost": 0}, server_cpu_secs=0.01, delivered_pct=100.0),
            rec("easel-2node", "channel", 1, {"delivered": 1000, "lost": 0}, server_cpu_secs=0.04,
                delivered_pct=100.0),
        ]
        s = report.summarise(recs)
        self.assertAlmostEqual(s["channel"]["easel-2node"]["cpu_us_per_frame"], 40.0)
        md = report.table("channel", s["channel"])
        rows = [line for line in md.splitlines() if line.startswith("| easel")]
        self.assertEqual([r.split(" |")[0] for r in rows], ["| easel", "| easel-2node"])

    def test_a_failed_server_is_a_row_not_a_crash(self):
        recs = [rec("easel", "idle", 1, {"authenticated": 10, "heartbeat_acks": 10},
                    server_memory={"bytes_per_session": 10240}),
                {"server": "py-socketio", "scenario": "idle", "error": "did not start"}]
        s = report.summarise(recs)
        self.assertEqual(s["idle"]["py-socketio"], {"error": "did not start"})
        self.assertIn("**failed**: did not start", report.table("idle", s["idle"]))

    def test_targets_are_judged_against_the_floor_and_the_peers(self):
        s = {"idle": {"easel": {"bytes_per_session": 10240, "p99_ms": 6.0},
                      "bare-actix": {"bytes_per_session": 10240}},
             "progress": {"easel": {"cpu_us_per_frame": 30.0, "lost": 0, "out_of_order": 0},
                          "bare-tungstenite": {"cpu_us_per_frame": 10.0},
                          "bare-actix": {"cpu_us_per_frame": 20.0},
                          "py-aiohttp": {"cpu_us_per_frame": 50.0}}}
        t = report.targets(s)
        self.assertIn("| idle: ≤ 20 KB per session | 10.00 KB | **met** |", t)
        self.assertIn("| idle: heartbeat-ack p99 ≤ 5 ms | 6.00 ms | **missed** |", t)
        self.assertIn("| progress: CPU per frame ≤ 2× the bare floor | 3.00× | **missed** |", t)
        self.assertIn("py-aiohttp 0.60× | **met** |", t)
        self.assertIn("channel: 100,000 deliveries/s | –/s | not measured: channel did not run against easel |", t)

    def test_chat_create_and_soak_figures(self):
        recs = [
            rec("easel", "chat", 1, {"tokens": 2000, "lost": 0, "unclosed_replies": 1, "seq_gaps": 2,
                                     "out_of_order": 0, "refused_busy": 3},
                server_cpu_secs=0.5, tokens_per_sec=400.0, jitter_ms={"p99": 3.0, "count": 2000},
                first_token_ms={"p99": 40.0, "count": 60}, effective_interval_ms=20.5),
            rec("easel", "create", 1, {"accepted": 30000, "refused": 1, "failed": 2},
                server_cpu_secs=15.0, throughput_per_sec=15000.0, rate=20000.0),
            rec("easel", "soak", 1, {"lost": 0, "idle_lost": 0, "progress_lost": 0, "channel_lost": 0},
                duration_secs=120.0, memory_growth_pct=1.5),
        ]
        s = report.summarise(recs)
        chat = s["chat"]["easel"]
        self.assertAlmostEqual(chat["cpu_us_per_frame"], 250.0)
        # Lost counts missing seqs, unclosed replies and push-sequence gaps.
        self.assertEqual(chat["lost"], 3)
        self.assertEqual(chat["refused"], 3)
        self.assertEqual(chat["jitter_p99_ms"], 3.0)
        self.assertEqual(s["create"]["easel"]["refused"], 3)
        # An old report has no breakdown: its cells stay empty.
        self.assertIsNone(s["create"]["easel"]["rate_limited"])
        self.assertAlmostEqual(s["create"]["easel"]["cpu_us_per_frame"], 500.0)
        self.assertIn("| easel | 2,000 | 400.00 |", report.table("chat", s["chat"]))
        t = report.targets(s)
        self.assertIn("create: ≥ 20,000 task creates/s on one core (embedded store; fsync settings above) "
                      "| 15,000/s of 20,000/s offered | **missed** |", t)
        self.assertIn("create did not run against easel-redis", t)
        # Keeping up with a lower offered rate judges nothing.
        s["create"]["easel"].update(offered=50.0, throughput=50.0)
        self.assertIn("| 50.00/s of 50.00/s offered | not measured: offered only 50.00/s (BENCH_CREATE_RATE) |",
                      report.targets(s))
        # A 2-minute soak does not judge the 30-minute target, but is shown judged on its own.
        self.assertIn("| 120.00 s: growth 1.50 %, lost 0 | not measured: ran 120.00 s, not 30 min", t)
        self.assertIn("soak (short, 120.00 s): memory growth < 5 %, nothing lost | 120.00 s: growth 1.50 %, "
                      "lost 0 | **met** |", t)
        s["soak"]["easel"].update(duration_s=1800.0, memory_growth_pct=6.0)
        self.assertIn("| soak: 30 min, memory growth < 5 %, nothing lost | 1,800 s: growth 6.00 %, lost 0 | "
                      "**missed** |", report.targets(s))

    def test_create_refusals_are_broken_down(self):
        counts = {"offered": 300000, "sent": 250000, "unsent": 50000, "accepted": 249000,
                  "refused": 700, "refused_rate_limited": 500, "refused_no_credits": 150, "refused_other": 50,
                  "timed_out": 200, "failed_transport": 100, "failed": 300}
        s = report.summarise([rec("easel", "create", 1, counts, server_cpu_secs=10.0,
                                  throughput_per_sec=16600.0, rate=20000.0)])
        e = s["create"]["easel"]
        self.assertEqual((e["rate_limited"], e["no_credits"], e["refused_other"]), (500, 150, 50))
        self.assertEqual((e["failed"], e["unsent"], e["refused"]), (300, 50000, 1000))
        md = report.table("create", s["create"])
        self.assertIn("refused: rate limit | refused: credits | refused: other | timed out or failed | "
                      "not sent (deadline)", md)
        self.assertIn("| 500 | 150 | 50 | 300 | 50,000 | 1 |", md)

    def test_idle_shows_the_drivers_own_lateness(self):
        s = report.summarise([rec("easel", "idle", 1, {"authenticated": 10, "heartbeat_acks": 10},
                                  send_lateness_ms={"p99": 0.9, "count": 10})])
        self.assertEqual(s["idle"]["easel"]["driver_late_p99_ms"], 0.9)
        self.assertIn("driver lateness p99 ms", report.table("idle", s["idle"]))

    def test_fanout_targets_and_easel_only_scenarios(self):
        recs = [
            rec("easel", "progress", 1, {"frames": 800, "lost": 0, "out_of_order": 0, "seq_gaps": 0},
                server_cpu_secs=0.08, fanout_delay_ms={"p50": 1.0, "p99": 8.0, "count": 800}),
            rec("easel-redis", "progress", 1, {"frames": 800, "lost": 0, "seq_gaps": 1},
                server_cpu_secs=0.16, fanout_delay_ms={"p50": 2.0, "p99": 16.0, "count": 800}),
            # The reference engine: no fan-out estimate.
            rec("bare-actix", "progress", 1, {"frames": 800, "lost": 0}, server_cpu_secs=0.04,
                fanout_delay_ms={"p50": 0, "p99": 0, "count": 0}),
            {"server": "bare-actix", "scenario": "chat", "na": "Easel-only scenario"},
        ]
        s = report.summarise(recs)
        self.assertEqual(s["chat"]["bare-actix"], {"na": "Easel-only scenario"})
        self.assertIn("| bare-actix | n/a (Easel-only scenario) |", report.table("chat", s["chat"]))
        self.assertIsNone(s["progress"]["bare-actix"]["fanout_p99_ms"])
        self.assertEqual(s["progress"]["easel-redis"]["seq_gaps"], 1)
        t = report.targets(s)
        self.assertIn("| progress: fan-out p99 ≤ 10 ms in-process | 8.00 ms (estimate, see progress notes) | **met** |", t)
        self.assertIn("| progress: fan-out p99 ≤ 15 ms through Redis | 16.00 ms (estimate, see progress notes) | "
                      "**missed** |", t)
        self.assertIn("| progress: CPU per frame ≤ 2× the bare floor | 2.00× | **met** |", t)
        self.assertIn("watchers: no frame lost or out of order | lost –, out of order –, seq gaps – | "
                      "not measured: watchers did not run against easel |", t)
        md = report.table("progress", s["progress"])
        self.assertIn("fan-out p99 ms", md)
        self.assertIn("| easel-redis |", md)
        self.assertIn("| estimate |", md)

    def test_measured_fanout_is_preferred_and_labelled(self):
        recs = [
            rec("easel", "progress", 1, {"frames": 800, "lost": 0, "out_of_order": 0}, server_cpu_secs=0.08,
                fanout_delay_ms={"p50": 1.0, "p99": 4.0, "count": 800},
                emit_to_receipt_ms={"p50": 1.5, "p99": 12.0, "count": 800}),
            # A baseline: no server time, the estimate stands.
            rec("bare-actix", "progress", 1, {"frames": 800, "lost": 0}, server_cpu_secs=0.04,
                fanout_delay_ms={"p50": 0.5, "p99": 2.0, "count": 800},
                emit_to_receipt_ms={"p50": 0, "p99": 0, "count": 0}),
        ]
        s = report.summarise(recs)
        self.assertEqual(s["progress"]["easel"]["fanout_p99_ms"], 12.0)
        self.assertEqual(s["progress"]["easel"]["fanout_est_p99_ms"], 4.0)
        self.assertEqual(s["progress"]["bare-actix"]["fanout_p99_ms"], 2.0)
        md = report.table("progress", s["progress"])
        self.assertIn("| 1.50 | 12.00 | measured (server ts) |", md)
        self.assertIn("| 0.50 | 2.00 | estimate |", md)
        t = report.targets(s)
        self.assertIn("| progress: fan-out p99 ≤ 10 ms in-process | 12.00 ms (measured: server emission to "
                      "receipt) | **missed** |", t)

    def test_feed_figures_table_and_target(self):
        def feed(run, p99, reads, writes, cpu_us=None, rate=1000.0, write_rate=200.0):
            extra = {"reads_per_sec": reads, "writes_per_sec": writes, "write_rate": write_rate, "rate": rate,
                     "server_cpu_secs": 3.0, "write_latency_ms": {"p99": 9.0, "count": 100},
                     "errors": {"read.timed_out": 1, "like.rate_limited": 2, "comment.rate_limited": 1}}
            if cpu_us is not None:
                extra["cpu_us_per_page"] = cpu_us
            r = rec("easel", "feed", run, {"reads_ok": 15000, "read_errors": 1, "write_errors": 3,
                                           "writes_skipped": 0}, p99=p99, **extra)
            r["report"]["latency_ms"]["max"] = 40.0
            return r
        recs = [feed(1, 12.0, 990.0, 199.0, cpu_us=150.0), feed(2, 18.0, 1000.0, 200.0, cpu_us=250.0),
                # No figure of the driver's own: the window CPU over the pages read (3 s / 15,000).
                feed(3, 25.0, 995.0, 198.0),
                {"server": "bare-actix", "scenario": "feed", "na": "Easel-only scenario"}]
        s = report.summarise(recs)
        e = s["feed"]["easel"]
        self.assertEqual(e["p99_ms"], 18.0)
        self.assertAlmostEqual(e["cpu_us_per_page"], 200.0)
        self.assertEqual(e["reads_per_sec"], 995.0)
        self.assertEqual(e["rate_limited"], 3)
        self.assertEqual(e["write_p99_ms"], 9.0)
        md = report.table("feed", s["feed"])
        self.assertIn("| server | offered reads/s | reads/s | page p50 ms | page p99 ms | page max ms | CPU µs/page |", md)
        self.assertIn("| easel | 1,000 | 995.00 | 1.00 | 18.00 | 40.00 | 200.00 | 200.00 | 199.00 | 9.00 | 1 | 3 | 3 | 0 | 3 |", md)
        self.assertIn("| bare-actix | n/a (Easel-only scenario) |", md)
        label = "| feed: p99 ≤ 20 ms at 1,000 page reads/s on one core while 200 writes/s go on |"
        t = report.targets(s)
        self.assertIn(label + " p99 18.00 ms at 995.00 reads/s with 199.00 writes/s | **met** |", t)
        # A slow tail misses; so does a server that fell behind the offered reads.
        e["p99_ms"] = 21.0
        self.assertIn(" | **missed** |", report.targets(s).split(label)[1].splitlines()[0])
        e.update(p99_ms=10.0, reads_per_sec=900.0)
        self.assertIn(" | **missed** |", report.targets(s).split(label)[1].splitlines()[0])
        # A lighter offered load judges nothing.
        e.update(reads_per_sec=500.0, offered=500.0)
        self.assertIn("not measured: offered only 500.00 reads/s", report.targets(s))
        self.assertIn(label + " p99 – ms at – reads/s with – writes/s | not measured: feed did not run against easel |",
                      report.targets({}))
        text = report.render(s, "make bench", "runs=3")
        self.assertIn("## feed", text)
        self.assertIn("`easel seed-square`", text)

    def test_video_seconds_per_cpu_second_and_task_wall(self):
        mib = 1024 * 1024
        recs = [
            rec("easel", "video", 1, {"videos": 6, "failed": 1, "refused": 0, "timed_out": 0,
                                      "unreadable_videos": 0, "wrong_size": 1},
                video_secs=35.0, video_secs_at_size=30.0, window_secs=70.0, server_cpu_secs=60.0,
                server_cpu_own_secs=20.0, server_cpu_children_secs=40.0,
                task_wall_ms={"p50": 21500.0, "max": 30000.0, "count": 6}),
            {"server": "bare-actix", "scenario": "video", "na": "Easel-only scenario"},
        ]
        s = report.summarise(recs)
        v = s["video"]["easel"]
        # Only the seconds at the requested size count, over server + ffmpeg CPU.
        self.assertAlmostEqual(v["video_per_cpu"], 0.5)
        self.assertEqual(v["video_secs"], 30.0)
        self.assertEqual(v["cpu_children_s"], 40.0)
        self.assertAlmostEqual(v["wall_p50_s"], 21.5)
        self.assertEqual((v["failed"], v["unreadable"]), (1, 1))
        md = report.table("video", s["video"])
        self.assertIn("s of video per CPU s", md)
        self.assertIn("| easel | 6 | 30.00 | 70.00 | 60.00 | 40.00 | 0.50 | 21.50 | 30.00 | 1 | 1 | 1 |", md)
        self.assertIn("n/a (Easel-only scenario)", md)
        # No CPU figure at all (a remote server): no ratio rather than a wrong one.
        r = rec("easel", "video", 1, {"videos": 1}, video_secs_at_size=5.0)
        r["proc"] = {}
        self.assertIsNone(report.figures(r)["video_per_cpu"])

        up = [rec("easel", "upload", n, {"parts": 52, "bytes": 1024 * mib}, bytes=1024 * mib,
                  mb_per_sec=mbs, mib_per_sec=mbs / 1.048576, join_ms=900.0, server_cpu_secs=3.0,
                  rss_before_bytes=40 * mib, rss_peak_bytes=peak * mib, rss_after_bytes=45 * mib, rss_samples=80)
              for n, mbs, peak in ((1, 100.0, 90), (2, 300.0, 70), (3, 200.0, 80))]
        s = report.summarise(up)
        u = s["upload"]["easel"]
        self.assertEqual(u["size_mib"], 1024.0)
        self.assertEqual(u["mb_per_sec"], 200.0)
        self.assertEqual(u["rss_peak_mib"], 80.0)
        self.assertEqual(u["rss_growth_mib"], 40.0)
        self.assertEqual(u["runs"], 3)
        md = report.table("upload", s["upload"])
        self.assertIn("RSS peak MiB", md)
        self.assertIn("| easel | 1,024 | 200.00 |", md)
        text = report.render(s, "make bench", "runs=3")
        self.assertIn("## upload", text)
        self.assertIn("`audio/mp4` in category 59", text)

    def test_render_writes_every_section(self):
        with tempfile.TemporaryDirectory() as d:
            import json
            with open(os.path.join(d, "easel.idle.1.json"), "w") as f:
                json.dump(rec("easel", "idle", 1, {"authenticated": 4, "heartbeat_acks": 8}), f)
            text = report.render(report.summarise(report.load(d)), "make bench", "runs=1", "redb, fsync per commit")
        self.assertIn("## idle", text)
        self.assertIn("**Durability (fsync) settings:** redb, fsync per commit", text)
        self.assertIn("## Targets", text)
        self.assertIn("`make bench`", text)
        self.assertNotIn("## Why Easel misses", text, "no analysis given: no section")

    def test_the_hand_written_analysis_follows_the_targets(self):
        with tempfile.TemporaryDirectory() as d:
            import json
            with open(os.path.join(d, "easel.idle.1.json"), "w") as f:
                json.dump(rec("easel", "idle", 1, {"authenticated": 4, "heartbeat_acks": 8}), f)
            text = report.render(report.summarise(report.load(d)), "make bench", "runs=1", "",
                                 "- **Creates.** The writer thread is busy.\n")
        self.assertIn("## Why Easel misses what it misses\n\n- **Creates.** The writer thread is busy.", text)
        self.assertLess(text.index("## Targets"), text.index("## Why Easel misses"))


if __name__ == "__main__":
    unittest.main()
