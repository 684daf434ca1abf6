#!/usr/bin/python3
# Optional reference figures (needs Debian's python3-torch and OpenBLAS: `bash .ci/dev reference`): PyTorch's
# forward at the shapes of `attnlab bench`, to compare with its attention_ms and forward_ms, on 1 and 2 threads
# (each thread count in its own process: OpenBLAS's pool size is fixed when torch is imported). Per shape:
#   torch_mha_ms        nn.MultiheadAttention(need_weights=True, per-head weights; PyTorch's own module, with
#                       its default in- and out-projection biases)
#   torch_attention_ms  the attention block as core/engine.cpp computes it (no biases: Q K V, Q Kᵀ, · 1/√d_k,
#                       + M, softmax, A V, Concat W^O), the counterpart of attention_ms
#   torch_layer_ms      the whole post-LN encoder layer as core/engine.cpp computes it (that block, X + MHA,
#                       LayerNorm, max(0, x W_1 + b_1) W_2 + b_2 with d_ff = 4 d_model, Add, LayerNorm), the
#                       counterpart of forward_ms; layer_gflops counts its products' flops as attnlab bench does
# Wall-clock medians. Before timing, the layer's definition is checked against tests/data/golden_encoder.json
# (PyTorch's reference that tests/core/test_golden.cpp holds the engine to). The first line says which
# OpenBLAS kernel ran; --coretype picks one (PyTorch's best here: --coretype auto, see openblas_core.py):
#   /usr/bin/python3 tests/bench/torch_mha_bench.py [--repeats 7] [--threads 1 2] [--coretype auto]
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import openblas_core

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = ((128, 512, 8), (512, 512, 8), (1024, 768, 12))


def encoder_layer(torch, F, x, w, mask):
    """One post-LN encoder layer of core/engine.cpp for one sentence: x (T, d_model), mask (T, T) additive."""
    T, d = x.shape
    h, d_k = w["h"], w["d_k"]
    qkv = x @ w["W_QKV"]  # (T, 3 h d_k): [X W_1^Q ... X W_h^Q | the K heads | the V heads]
    q, k, v = (t.view(T, h, d_k).transpose(0, 1) for t in qkv.split(h * d_k, dim=1))  # (h, T, d_k) each
    scores = q @ k.transpose(1, 2)  # (h, T, T) Q_h K_hᵀ
    masked = scores * (1.0 / math.sqrt(d_k)) + mask  # / √d_k, + M
    weights = torch.softmax(masked, dim=-1)  # τ = 1
    head_out = weights @ v  # (h, T, d_v) A_h V_h
    mha = head_out.transpose(0, 1).reshape(T, h * d_k) @ w["W_O"]  # Concat(head_1 ... head_h) W^O
    norm1 = F.layer_norm(x + mha, (d,), w["gamma_1"], w["beta_1"], 1e-5)
    ffn = torch.addmm(w["b_2"], torch.relu(torch.addmm(w["b_1"], norm1, w["W_1"])), w["W_2"])
    norm2 = F.layer_norm(norm1 + ffn, (d,), w["gamma_2"], w["beta_2"], 1e-5)
    return weights, mha, norm1, ffn, norm2


def attention_block(torch, x, w, mask):
    """encoder_layer's attention block alone (what attnlab bench's attention_ms times)."""
    T = x.shape[0]
    h, d_k = w["h"], w["d_k"]
    q, k, v = (t.view(T, h, d_k).transpose(0, 1) for t in (x @ w["W_QKV"]).split(h * d_k, dim=1))
    weights = torch.softmax((q @ k.transpose(1, 2)) * (1.0 / math.sqrt(d_k)) + mask, dim=-1)
    return weights, (weights @ v).transpose(0, 1).reshape(T, h * d_k) @ w["W_O"]


def golden_weights(torch, layer, h):
    """A layer of golden_encoder.json (the paper's orientation, per head) as encoder_layer's weights."""
    def t(name):
        return torch.tensor(layer[name], dtype=torch.float32)

    w = {name: t(name) for name in ("W_O", "W_1", "b_1", "W_2", "b_2", "gamma_1", "beta_1", "gamma_2", "beta_2")}
    w["W_QKV"] = torch.cat([t(name)[j] for name in ("W_Q", "W_K", "W_V") for j in range(h)], dim=1)
    w["h"], w["d_k"] = h, w["W_QKV"].shape[1] // (3 * h)
    return w


def check_against_golden(torch, F):
    """encoder_layer on golden_encoder.json's two layers (padding and causal masks): its weights, mha, norm1,
    ffn and norm2 must match that file's PyTorch outputs; returns the largest difference."""
    with open(os.path.join(HERE, "..", "data", "golden_encoder.json")) as f:
        golden = json.load(f)
    c = golden["config"]
    T = c["T"]
    x = torch.tensor(golden["X"], dtype=torch.float32)
    worst = 0.0
    for layer in golden["layers"]:
        w = golden_weights(torch, layer, c["h"])
        expected = layer["expected"]
        outputs = []
        for b, length in enumerate(golden["lengths"]):
            mask = torch.zeros(T, T)
            mask[:, length:] = float("-inf")
            if c["causal"]:
                mask = mask.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
            outputs.append(encoder_layer(torch, F, x[b], w, mask))
        for i, name in enumerate(("weights", "mha", "norm1", "ffn", "norm2")):
            got = torch.stack([o[i] for o in outputs])
            diff = (got - torch.tensor(expected[name])).abs().max().item()
            if not diff <= 1e-5:
                sys.exit("torch_mha_bench.py: the layer differs from golden_encoder.json's %s by %g" % (name, diff))
            worst = max(worst, diff)
        x = torch.stack([o[4] for o in outputs])
    return worst


def layer_flops(T, d, h, d_k, d_ff):
    """The products' flops of one layer, as attnlab bench counts them (app/cli/bench_command.cpp)."""
    return 2 * T * d * h * 3 * d_k + 2 * T * T * h * 2 * d_k + 2 * T * h * d_k * d + 2 * 2 * T * d * d_ff


def median_ms(run, repeats):
    for _ in range(2):  # warm-up
        run()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def time_one(threads, repeats):
    # torch.set_num_threads alone does not reach OpenBLAS's own pool; these must be set before the import.
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(threads)
    import torch
    from torch import nn
    from torch.nn import functional as F

    torch.set_num_threads(threads)
    worst = check_against_golden(torch, F)
    print("torch=%s threads=%d repeats=%d %s golden_encoder_max_diff=%.1e" % (
        torch.__version__, torch.get_num_threads(), repeats, openblas_core.describe(), worst), flush=True)
    torch.manual_seed(0)
    for T, d, h in SHAPES:
        d_k, d_ff = d // h, 4 * d
        mha = nn.MultiheadAttention(d, h, batch_first=True).eval()
        w = {"h": h, "d_k": d_k, "W_QKV": torch.randn(d, 3 * d) / math.sqrt(d),
             "W_O": torch.randn(d, d) / math.sqrt(d), "W_1": torch.randn(d, d_ff) / math.sqrt(d), "b_1": 0.1 * torch.randn(d_ff),
             "W_2": torch.randn(d_ff, d) / math.sqrt(d_ff), "b_2": 0.1 * torch.randn(d),
             "gamma_1": torch.ones(d), "beta_1": torch.zeros(d), "gamma_2": torch.ones(d), "beta_2": torch.zeros(d)}
        x = torch.randn(T, d)
        mask = torch.zeros(T, T)  # one sentence, no padding, no causal mask: M is all zeros, as in attnlab bench
        with torch.no_grad():
            mha_ms = median_ms(lambda: mha(x[None], x[None], x[None], need_weights=True,
                                           average_attn_weights=False), repeats)
            attention_ms = median_ms(lambda: attention_block(torch, x, w, mask), repeats)
            layer_ms = median_ms(lambda: encoder_layer(torch, F, x, w, mask), repeats)
        print("threads=%d T=%d d_model=%d h=%d torch_mha_ms=%.3f torch_attention_ms=%.3f torch_layer_ms=%.3f "
              "layer_gflops=%.2f" % (threads, T, d, h, mha_ms, attention_ms, layer_ms,
                                     layer_flops(T, d, h, d_k, d_ff) / (layer_ms * 1e6)), flush=True)


def main():
    parser = argparse.ArgumentParser(description="PyTorch's attention block and encoder layer at attnlab bench's "
                                                 "shapes")
    parser.add_argument("repeats_legacy", nargs="?", type=int, help=argparse.SUPPRESS)  # the old [repeats]
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per shape (the median is shown)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts, one process each")
    openblas_core.add_argument(parser)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one thread count
    args = parser.parse_args()
    repeats = args.repeats_legacy or args.repeats
    if args.one:
        time_one(args.threads[0], repeats)
        return
    openblas_core.choose(args.coretype)  # in the environment the children inherit
    for n in args.threads:
        subprocess.run([sys.executable, __file__, "--one", "--threads", str(n), "--repeats", str(repeats)],
                       check=True)


if __name__ == "__main__":
    main()
