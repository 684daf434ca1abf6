#!/usr/bin/python3
# Optional reference figures (needs Debian's python3-torch and OpenBLAS: `bash .ci/dev reference`): PyTorch's
# nn.MultiheadAttention forward on one thread at the shapes of `attnlab bench`, to compare with its
# attention_ms. The first line says which OpenBLAS kernel ran; --coretype picks one (auto: the widest this CPU
# allows, PyTorch's best; see openblas_core.py):
#   /usr/bin/python3 tests/bench/torch_mha_bench.py [repeats] [--coretype auto]
import argparse
import os
import statistics
import time

import openblas_core

# torch.set_num_threads(1) does not reach OpenBLAS's own thread pool (Debian's libopenblas0-pthread), which
# would otherwise run torch's matrix products on every core. These must be set before torch is imported.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"
parser = argparse.ArgumentParser(description="PyTorch's nn.MultiheadAttention at attnlab bench's shapes")
parser.add_argument("repeats", nargs="?", type=int, default=7, help="timed runs per shape (the median is shown)")
openblas_core.add_argument(parser)
ARGS = parser.parse_args()
openblas_core.choose(ARGS.coretype)  # OPENBLAS_CORETYPE too must be set before the import

import torch  # noqa: E402
from torch import nn  # noqa: E402


def main():
    repeats = ARGS.repeats
    torch.set_num_threads(1)
    print("torch=%s threads=1 repeats=%d %s" % (torch.__version__, repeats, openblas_core.describe()), flush=True)
    for T, E, h in ((128, 512, 8), (512, 512, 8), (1024, 768, 12)):
        mha = nn.MultiheadAttention(E, h, batch_first=True).eval()
        x = torch.randn(1, T, E)
        times = []
        with torch.no_grad():
            for i in range(repeats + 2):
                start = time.perf_counter()
                mha(x, x, x, need_weights=True, average_attn_weights=False)
                if i >= 2:
                    times.append((time.perf_counter() - start) * 1e3)
        print(f"T={T} d_model={E} h={h} torch_mha_ms={statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
