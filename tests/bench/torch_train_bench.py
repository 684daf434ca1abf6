#!/usr/bin/python3
# Reference figures (needs Debian's python3-torch): PyTorch's ms per training step, one thread, for the same
# models as core/train's task presets (decoder-only, no attention biases, ReLU FFN, AdamW, clipping at 1.0),
# to compare with `attnlab_train_bench`. Times are CPU time of this process, so other load on the machine
# inflates them less than wall-clock time would. The first line says which OpenBLAS kernel ran; --coretype
# picks one (auto: the widest this CPU allows, PyTorch's best; see openblas_core.py):
#   /usr/bin/python3 tests/bench/torch_train_bench.py [steps] [--coretype auto]
import argparse
import math
import os
import time

import openblas_core

# torch.set_num_threads(1) does not reach OpenBLAS's own thread pool; these must be set before the import, and
# so must OPENBLAS_CORETYPE.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"
parser = argparse.ArgumentParser(description="PyTorch's ms per training step of core/train's task presets")
parser.add_argument("steps", nargs="?", type=int, default=100, help="timed steps per preset")
openblas_core.add_argument(parser)
ARGS = parser.parse_args()
openblas_core.choose(ARGS.coretype)

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

# name: vocab, T, layers, heads, d_model, attention_only, batch (core/train/tasks.cpp's presets)
PRESETS = {
    "copy": (11, 16, 1, 1, 32, False, 64),
    "reverse": (11, 16, 2, 2, 48, False, 64),
    "sort": (3, 11, 3, 3, 48, False, 64),
    "induction": (32, 32, 2, 4, 64, True, 32),
    "brackets": (5, 13, 2, 4, 48, False, 64),
    "agreement": (55, 10, 2, 2, 32, False, 64),
    "text": (76, 64, 2, 4, 64, True, 32),  # Austen's 76 characters; attnlab train --task text
}


class Block(nn.Module):
    def __init__(self, d, h, T, attention_only):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.attention_only = attention_only
        if not attention_only:
            self.ln2 = nn.LayerNorm(d)
            self.fc1 = nn.Linear(d, 4 * d)
            self.fc2 = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        if not self.attention_only:
            x = x + self.fc2(F.relu(self.fc1(self.ln2(x))))
        return x


class Model(nn.Module):
    def __init__(self, V, T, L, h, d, attention_only):
        super().__init__()
        self.E = nn.Embedding(V, d)
        self.P = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Block(d, h, T, attention_only) for _ in range(L)])
        self.lnf = nn.LayerNorm(d)
        self.unembed = nn.Linear(d, V)

    def forward(self, tokens, targets):
        T = tokens.shape[1]
        x = self.E(tokens) + self.P(torch.arange(T))
        for block in self.blocks:
            x = block(x)
        logits = self.unembed(self.lnf(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    steps = ARGS.steps
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, one thread, {steps} steps after 10 warm-up steps,",
          openblas_core.describe())
    for name, (V, T, L, h, d, attention_only, B) in PRESETS.items():
        model = Model(V, T, L, h, d, attention_only)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
        tokens = torch.randint(V, (B, T))
        targets = torch.randint(V, (B, T))

        def step():
            loss = model(tokens, targets)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        for _ in range(10):
            step()
        start = time.process_time()
        for _ in range(steps):
            step()
        ms = 1000 * (time.process_time() - start) / steps
        params = sum(p.numel() for p in model.parameters())
        print(f"{name:10s} {L}/{h}/{d:<3d} B={B} T={T} params={params:6d}: {ms:7.2f} ms/step")


if __name__ == "__main__":
    main()
