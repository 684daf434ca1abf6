#!/usr/bin/python3
# Reference figures (needs Debian's python3-torch): PyTorch's time for one GPT-2-small forward pass in float32
# (B = 1, T tokens, every layer, the logits and their softmax), with N threads, to set beside
# `attnlab bench --model DIR --text ... --threads N`. A plain-torch GPT-2 (transformers is not needed): the
# weights are random N(0, 0.02²), or read from a Hugging Face folder's model.safetensors with numpy. Each
# thread count runs in its own process, because OpenBLAS's pool size is fixed when torch is imported.
# Wall-clock median of the repeats, as attnlab bench reports. Debian's torch calls whatever libblas.so.3 is
# installed: the reference BLAS (about 20 times slower) unless libopenblas0-pthread is; an unpacked copy of
# that package can be used for this command alone with LD_LIBRARY_PATH=<copy>/usr/lib/x86_64-linux-gnu/
# openblas-pthread (`bash .ci/dev reference` installs it). Each child's line says which OpenBLAS kernel ran;
# --coretype picks one (auto: the widest this CPU allows, PyTorch's best; see openblas_core.py):
#   /usr/bin/python3 tests/bench/torch_hf_forward.py [--model DIR] [--tokens 64] [--threads 1 2] \
#       [--repeats 15] [--coretype auto]
import argparse
import json
import os
import struct
import subprocess
import sys
import time

import openblas_core

# GPT-2 small: layers, heads, width, positions, vocabulary.
LAYERS, HEADS, D, POSITIONS, VOCAB = 12, 12, 768, 1024, 50257


def read_safetensors(path):
    """The F32 tensors of a .safetensors file as numpy arrays, by name."""
    import numpy as np

    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        begin, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(info["shape"]).copy()
    return tensors


def gpt2_weights(torch, folder):
    """name -> tensor in the GPT2LMHeadModel layout (Conv1D weights input x output), without the prefix."""
    if folder:
        raw = read_safetensors(os.path.join(folder, "model.safetensors"))
        return {k[len("transformer."):] if k.startswith("transformer.") else k: torch.from_numpy(v)
                for k, v in raw.items()}
    g = torch.Generator().manual_seed(1)

    def normal(*shape):
        return torch.randn(*shape, generator=g) * 0.02

    w = {"wte.weight": normal(VOCAB, D), "wpe.weight": normal(POSITIONS, D),
         "ln_f.weight": torch.ones(D), "ln_f.bias": torch.zeros(D)}
    for l in range(LAYERS):
        p = "h.%d." % l
        w.update({p + "ln_1.weight": torch.ones(D), p + "ln_1.bias": torch.zeros(D),
                  p + "attn.c_attn.weight": normal(D, 3 * D), p + "attn.c_attn.bias": normal(3 * D),
                  p + "attn.c_proj.weight": normal(D, D), p + "attn.c_proj.bias": normal(D),
                  p + "ln_2.weight": torch.ones(D), p + "ln_2.bias": torch.zeros(D),
                  p + "mlp.c_fc.weight": normal(D, 4 * D), p + "mlp.c_fc.bias": normal(4 * D),
                  p + "mlp.c_proj.weight": normal(4 * D, D), p + "mlp.c_proj.bias": normal(D)})
    return w


def forward(torch, F, w, ids):
    """GPT-2's forward pass: pre-LN blocks, tanh GELU, causal attention, tied unembedding, softmax."""
    T = ids.shape[0]
    dk = D // HEADS
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    mask = torch.full((T, T), float("-inf")).triu(1)
    for l in range(LAYERS):
        p = "h.%d." % l
        a = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], 1e-5)
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], a, w[p + "attn.c_attn.weight"])
        q, k, v = (t.view(T, HEADS, dk).transpose(0, 1) for t in qkv.split(D, dim=1))
        scores = q @ k.transpose(1, 2) / dk ** 0.5 + mask
        heads = torch.softmax(scores, dim=-1) @ v
        concat = heads.transpose(0, 1).reshape(T, D)
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], concat, w[p + "attn.c_proj.weight"])
        m = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], 1e-5)
        hidden = F.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], m, w[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], hidden, w[p + "mlp.c_proj.weight"])
    z = F.layer_norm(x, (D,), w["ln_f.weight"], w["ln_f.bias"], 1e-5)
    logits = z @ w["wte.weight"].t()
    return logits, torch.softmax(logits, dim=-1)


def time_one(threads, tokens, repeats, folder):
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(threads)
    import torch
    from torch.nn import functional as F

    torch.set_num_threads(threads)
    w = gpt2_weights(torch, folder)
    ids = torch.randint(0, VOCAB, (tokens,), generator=torch.Generator().manual_seed(2))
    times = []
    with torch.no_grad():
        forward(torch, F, w, ids)  # warm-up
        for _ in range(repeats):
            start = time.perf_counter()
            forward(torch, F, w, ids)
            times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    median = times[len(times) // 2] if len(times) % 2 else 0.5 * (times[len(times) // 2 - 1] + times[len(times) // 2])
    print("torch=%s threads=%d T=%d forward_ms=%.3f min_ms=%.3f %s" % (
        torch.__version__, torch.get_num_threads(), tokens, median, times[0], openblas_core.describe()), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="", help="a GPT-2-small-shaped Hugging Face folder (default: random)")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=15)
    openblas_core.add_argument(parser)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: one thread count
    args = parser.parse_args()
    if args.one:
        time_one(args.threads[0], args.tokens, args.repeats, args.model)
        return
    openblas_core.choose(args.coretype)  # in the environment the children inherit
    for n in args.threads:
        subprocess.run([sys.executable, __file__, "--one", "--threads", str(n), "--tokens", str(args.tokens),
                        "--repeats", str(args.repeats), "--model", args.model], check=True)


if __name__ == "__main__":
    main()
