#!/usr/bin/python3
# The README's table against PyTorch in one command (`bash .ci/dev compare` installs the reference packages,
# builds and runs this). A shared or virtual machine drifts by tens of percent within minutes, so one run of
# each side says little: this alternates rounds of `attnlab-headless bench` (one and two threads) and of
# tests/bench/torch_mha_bench.py (PyTorch at its best OpenBLAS kernel, --coretype auto) and prints, per shape
# and thread count, the median over the rounds of each figure (each itself a median of --repeats runs), the
# ratio of the medians, and the lowest and highest ratio of a single round, so the spread is in the table.
#   /usr/bin/python3 tests/bench/compare_torch.py [--rounds 6] [--repeats 7] [--threads 1 2]
#       [--binary build/app/attnlab-headless]
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIELD = re.compile(r"(\w+)=([-0-9.e+]+)")


def fields(line):
    """The name=number pairs of one line of a bench, as floats."""
    return {name: float(value) for name, value in FIELD.findall(line)}


def ours(binary, threads, repeats):
    """{(T, d_model, h): fields} from one run of attnlab-headless bench, and the header line."""
    out = subprocess.run([binary, "bench", "--threads", str(threads), "--repeats", str(repeats)],
                         check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    shapes = {}
    for line in lines[1:]:
        f = fields(line)
        shapes[(int(f["T"]), int(f["d_model"]), int(f["h"]))] = f
    return lines[0], shapes


def theirs(threads, repeats):
    """{(threads, T, d_model, h): fields} from one run of torch_mha_bench.py, and its header lines."""
    env = dict(os.environ)
    for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # --coretype auto picks the kernel itself
        env.pop(variable, None)
    command = [sys.executable, os.path.join(HERE, "torch_mha_bench.py"), "--repeats", str(repeats),
               "--coretype", "auto", "--threads"] + [str(n) for n in threads]
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    shapes, headers = {}, []
    for line in out.splitlines():
        if line.startswith("threads=") and " T=" in line:
            f = fields(line)
            shapes[(int(f["threads"]), int(f["T"]), int(f["d_model"]), int(f["h"]))] = f
        else:
            headers.append(line)
    return headers, shapes


def spread(values):
    return "%.2f-%.2f" % (min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description="attnlab bench against PyTorch, alternating rounds")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds of both benches")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per shape in each bench")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts to compare")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "app", "attnlab-headless"))
    args = parser.parse_args()
    if args.rounds < 1 or args.repeats < 1 or any(n < 1 for n in args.threads):
        parser.error("--rounds, --repeats and --threads take whole numbers of 1 or more")
    if not os.access(args.binary, os.X_OK):
        parser.error("no attnlab-headless at %s: build it first (cmake --build build) or pass --binary" % args.binary)

    ours_rounds, theirs_rounds = [], []  # per round: {(threads, shape): fields}
    headers, torch_headers = {}, []  # ours per thread count, PyTorch's
    for r in range(args.rounds):
        mine = {}
        for n in args.threads:
            headers[n], shapes = ours(args.binary, n, args.repeats)
            for shape, f in shapes.items():
                mine[(n,) + shape] = f
        try:
            torch_headers, peer = theirs(args.threads, args.repeats)
        except subprocess.CalledProcessError as failure:
            sys.exit("compare_torch.py: PyTorch's bench stopped (%s): is the reference installed? `bash .ci/dev "
                     "reference` installs it, `bash .ci/dev compare` does both" % (failure.stderr or "").strip()[-300:])
        ours_rounds.append(mine)
        theirs_rounds.append(peer)
        print("round %d of %d done" % (r + 1, args.rounds), file=sys.stderr, flush=True)

    for n in args.threads:
        print(headers[n])
    for line in torch_headers:
        print(line)
    print("%d alternating rounds, each figure a median over the rounds (each round's own a median of %d runs); "
          "ratio = ours / PyTorch of those medians, [lowest-highest] of single rounds" % (args.rounds,
                                                                                           args.repeats))
    print()
    print("| threads | T, d_model, h | whole layer: ours / PyTorch ms | ratio [rounds] | attention block: ours / "
          "nn.MultiheadAttention ms | ratio [rounds] | gemm_of_peak | packed_gemm_of_peak | layer_of_peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(ours_rounds[0]):
        if not all(key in peer for peer in theirs_rounds):
            continue
        ours_of = lambda name: [rnd[key][name] for rnd in ours_rounds]
        theirs_of = lambda name: [rnd[key][name] for rnd in theirs_rounds]
        layer, torch_layer = ours_of("forward_ms"), theirs_of("torch_layer_ms")
        attention, torch_mha = ours_of("attention_ms"), theirs_of("torch_mha_ms")
        median = statistics.median
        print("| %d | %d, %d, %d | %.2f / %.2f | %.2f [%s] | %.2f / %.2f | %.2f [%s] | %.2f | %.2f | %.2f |" % (
            key[0], key[1], key[2], key[3], median(layer), median(torch_layer), median(layer) / median(torch_layer),
            spread([a / b for a, b in zip(layer, torch_layer)]), median(attention), median(torch_mha),
            median(attention) / median(torch_mha), spread([a / b for a, b in zip(attention, torch_mha)]),
            median(ours_of("gemm_of_peak")), median(ours_of("packed_gemm_of_peak")),
            median(ours_of("layer_of_peak"))))


if __name__ == "__main__":
    main()
