#!/usr/bin/python3
# The README's table against PyTorch in one command (`bash .ci/dev compare` installs the reference packages,
# builds and runs this). A shared or virtual machine drifts by tens of percent within minutes, so one run of
# each side says little: this alternates rounds of `attnlab-headless bench` (one and two threads) and of
# tests/bench/torch_mha_bench.py (PyTorch at its best OpenBLAS kernel, --coretype auto) and prints, per shape
# and thread count, the median over the rounds of each figure (each itself a median of --repeats runs), the
# ratio of the medians, and the lowest and highest ratio of a single round, so the spread is in the table.
# With --training, the same for a training step of each task preset instead: CPU time per step of
# tests/bench/attnlab_train_bench (--benchmark_min_time 1) against tests/bench/torch_train_bench.py (200 steps).
#   /usr/bin/python3 tests/bench/compare_torch.py [--rounds 6] [--repeats 7] [--threads 1 2]
#       [--binary build/app/attnlab-headless] [--training [--train-bench build/tests/bench/attnlab_train_bench]]
import argparse
import csv
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


def ours_training(binary):
    """{preset: CPU ms per step} from one run of attnlab_train_bench (run from the source tree, whose text
    corpus the text preset reads)."""
    out = subprocess.run([binary, "--benchmark_min_time=1", "--benchmark_format=csv"], check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout
    steps = {}
    for row in csv.reader(out.splitlines()):
        if row and row[0].startswith("BM_TrainStep") and len(row) > 7:
            steps[row[7].split()[0]] = float(row[3])
    return steps


def theirs_training():
    """{preset: CPU ms per step} from one run of torch_train_bench.py, and its header line."""
    env = dict(os.environ)
    for variable in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(variable, None)
    out = subprocess.run([sys.executable, os.path.join(HERE, "torch_train_bench.py"), "200", "--coretype", "auto"],
                         check=True, capture_output=True, text=True, env=env).stdout
    steps, header = {}, ""
    for line in out.splitlines():
        match = re.match(r"(\w+)\s.*:\s*([0-9.]+) ms/step", line)
        if match:
            steps[match.group(1)] = float(match.group(2))
        elif not header:
            header = line
    return header, steps


def compare_training(args):
    if not os.access(args.train_bench, os.X_OK):
        sys.exit("compare_torch.py: no attnlab_train_bench at %s: build it first (cmake --build build) or pass "
                 "--train-bench" % args.train_bench)
    ours_rounds, theirs_rounds, header = [], [], ""
    for r in range(args.rounds):
        ours_rounds.append(ours_training(args.train_bench))
        try:
            header, peer = theirs_training()
        except subprocess.CalledProcessError as failure:
            sys.exit("compare_torch.py: PyTorch's bench stopped (%s): `bash .ci/dev reference` installs it"
                     % (failure.stderr or "").strip()[-300:])
        theirs_rounds.append(peer)
        print("round %d of %d done" % (r + 1, args.rounds), file=sys.stderr, flush=True)
    print(header)
    print("%d alternating rounds; CPU ms per training step, one thread, each figure the median over the rounds; "
          "ratio = ours / PyTorch of those medians, [lowest-highest] of single rounds" % args.rounds)
    print()
    print("| preset | ours, ms | PyTorch, ms | ratio [rounds] |")
    print("|---|---|---|---|")
    for preset in ours_rounds[0]:
        if not all(preset in rnd for rnd in ours_rounds) or not all(preset in peer for peer in theirs_rounds):
            continue
        mine = [rnd[preset] for rnd in ours_rounds]
        peer = [rnd[preset] for rnd in theirs_rounds]
        median = statistics.median
        print("| %s | %.2f | %.2f | %.2f [%s] |" % (preset, median(mine), median(peer), median(mine) / median(peer),
                                                 spread([a / b for a, b in zip(mine, peer)])))


def spread(values):
    return "%.2f-%.2f" % (min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description="attnlab bench against PyTorch, alternating rounds")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds of both benches")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per shape in each bench")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts to compare")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "app", "attnlab-headless"))
    parser.add_argument("--training", action="store_true", help="compare a training step of each preset instead")
    parser.add_argument("--train-bench", default=os.path.join(ROOT, "build", "tests", "bench", "attnlab_train_bench"))
    args = parser.parse_args()
    if args.rounds < 1 or args.repeats < 1 or any(n < 1 for n in args.threads):
        parser.error("--rounds, --repeats and --threads take whole numbers of 1 or more")
    if args.training:
        compare_training(args)
        return
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
