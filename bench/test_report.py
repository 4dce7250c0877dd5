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
        self.assertIn("channel: 100,000 deliveries/s | –/s | n/a |", t)

    def test_render_writes_every_section(self):
        with tempfile.TemporaryDirectory() as d:
            import json
            with open(os.path.join(d, "easel.idle.1.json"), "w") as f:
                json.dump(rec("easel", "idle", 1, {"authenticated": 4, "heartbeat_acks": 8}), f)
            text = report.render(report.summarise(report.load(d)), "make bench", "runs=1")
        self.assertIn("## idle", text)
        self.assertIn("## Targets", text)
        self.assertIn("`make bench`", text)


if __name__ == "__main__":
    unittest.main()
