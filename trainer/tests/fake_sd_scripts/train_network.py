#!/usr/bin/env python3
"""A stand-in for kohya-ss sd-scripts' train_network.py in Easel's tests.

It takes the same command-line flags Easel passes, reads the dataset TOML
(--dataset_config) the way sd-scripts does (image_dir, num_repeats,
batch_size, caption_extension), counts steps as sd-scripts does, prints a
tqdm bar ("steps:  N%|...| done/total [...]") on stderr with carriage
returns, and writes <output_dir>/<output_name>.safetensors: a tiny LoRA
with kohya metadata. A checkpoint file named "*slow*" slows each step; one
named "*oom*" fails after the first epoch like a CUDA out-of-memory error.
"""
import argparse, json, math, os, struct, sys, time, tomllib

p = argparse.ArgumentParser()
for flag in ["pretrained_model_name_or_path", "dataset_config", "output_dir", "output_name",
             "save_model_as", "network_module", "network_dim", "network_alpha", "learning_rate",
             "max_train_epochs", "optimizer_type", "mixed_precision", "seed", "training_comment",
             "caption_extension", "clip_l", "t5xxl", "ae"]:
    p.add_argument("--" + flag)
a = p.parse_args()
for required in ["pretrained_model_name_or_path", "dataset_config", "output_dir", "output_name"]:
    if not getattr(a, required):
        sys.exit(f"error: --{required} is required")
if not os.path.exists(a.pretrained_model_name_or_path):
    print(f"FileNotFoundError: {a.pretrained_model_name_or_path}", file=sys.stderr)
    sys.exit(1)
with open(a.dataset_config, "rb") as f:
    cfg = tomllib.load(f)
ds = cfg["datasets"][0]
sub = ds["subsets"][0]
ext = cfg["general"].get("caption_extension", ".caption")
images = [n for n in sorted(os.listdir(sub["image_dir"])) if n.rsplit(".", 1)[-1] in ("png", "jpg", "jpeg", "webp")]
for n in images:
    cap = os.path.join(sub["image_dir"], n.rsplit(".", 1)[0] + ext)
    if not os.path.exists(cap):
        sys.exit(f"no caption for {n}")
epochs = int(a.max_train_epochs)
per_epoch = math.ceil(len(images) * int(sub["num_repeats"]) / int(ds["batch_size"]))
total = per_epoch * epochs
print(f"running training / 学習開始\n  num train images * repeats: {len(images) * int(sub['num_repeats'])}\n  num epochs: {epochs}\n  total optimization steps: {total}", flush=True)
# A checkpoint named "*slow*" makes each step take 50 ms (the cancel test).
sleep = 0.05 if "slow" in os.path.basename(a.pretrained_model_name_or_path) else 0.0
done = 0
for e in range(1, epochs + 1):
    print(f"\nepoch {e}/{epochs}", flush=True)
    for _ in range(per_epoch):
        done += 1
        pct = done * 100 // total
        sys.stderr.write(f"\rsteps: {pct:3d}%|{'#' * (pct // 10):10s}| {done}/{total} [00:01<00:02,  4.85it/s, avr_loss=0.{100 - pct:03d}]")
        sys.stderr.flush()
        if sleep:
            time.sleep(sleep)
    if "oom" in os.path.basename(a.pretrained_model_name_or_path):
        print("\nRuntimeError: CUDA out of memory", file=sys.stderr)
        sys.exit(1)
dim = int(a.network_dim)
data = struct.pack(f"<{dim * 4}f", *([0.01] * (dim * 4)))
meta = {"ss_network_dim": str(dim), "ss_network_alpha": a.network_alpha,
        "ss_network_module": a.network_module, "ss_num_epochs": str(epochs),
        "ss_training_comment": a.training_comment or "",
        "ss_tag_frequency": json.dumps({os.path.basename(sub["image_dir"]): {sub.get("class_tokens", ""): len(images)}})}
header = {"__metadata__": meta,
          "lora_unet_down_blocks_0_attentions_0_proj_in.lora_down.weight": {"dtype": "F32", "shape": [dim, 4], "data_offsets": [0, len(data)]}}
h = json.dumps(header).encode()
h += b" " * ((8 - len(h) % 8) % 8)
os.makedirs(a.output_dir, exist_ok=True)
with open(os.path.join(a.output_dir, a.output_name + ".safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + data)
print("\nmodel saved.", flush=True)
