#!/usr/bin/python3
# Where the forward pass's time goes: records `attnlab-headless bench` on one shape with perf (Debian's
# linux-perf; `bash .ci/dev profile` installs it and runs this), keeps the samples whose call stack passes
# through Engine::run (the bench's own GEMM and attention timings and its peak probe are left out, and so are
# the first run's weight making and packing, counted apart), and prints a table: each product of the layer
# (its kernel, its packing of the right operand, the rest of its call), each other stage (the attention rows'
# scale, mask and softmax, LayerNorm, the finiteness checks, the copies into the trace, ...), allocation and
# page faults, and threading.
#   /usr/bin/python3 tests/bench/profile_forward.py [--t 128] [--d-model 512] [--heads 8] [--repeats 200]
#       [--threads 1] [--isa avx512|avx2|baseline] [--binary build/app/attnlab-headless] [--freq 2000]
# The call stacks come from perf's DWARF unwinding (the Release build's unwind tables; no -g needed). The
# samples are of CPU time (cpu-clock), so a busy machine slows the figures but not the shares much.
import argparse
import collections
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The forward products by the overload of gemm that runs them (mangled names: the overloads differ there
# only), and by who called it where two products share one overload.
GEMM_PLAIN = "_ZN7attnlab4gemmERKN5Eigen6MatrixIfLin1ELin1ELi1ELin1ELin1EEES4_RS2_"
GEMM_PACKED = "_ZN7attnlab4gemmERKN5Eigen6MatrixIfLin1ELin1ELi1ELin1ELin1EEES4_PKNS_13PackedOperandERS2_"
GEMM_EPILOGUE = GEMM_PACKED + "RKNS_15ProductEpilogueE"
GEMM_BT = "_ZN7attnlab7gemm_btE"

PRODUCTS = (
    "Q, K, V = X W (per head)",
    "scores = Q Kᵀ (per head)",
    "head_out = A V (per head)",
    "mha = Concat W^O (+ X)",
    "FFN: x W_1 (+ b_1, ReLU), h W_2 (+ b_2, + norm1)",
)


def product_of(stack, names):
    """The product a sample is in (PRODUCTS) or None; stack is leaf first, mangled."""
    for i, sym in enumerate(stack):
        if sym.startswith(GEMM_BT):
            return PRODUCTS[1]
        if sym == GEMM_PLAIN:
            return PRODUCTS[2]
        if sym == GEMM_PACKED:
            return PRODUCTS[0]
        if sym == GEMM_EPILOGUE:
            caller = names.get(stack[i + 1], "") if i + 1 < len(stack) else ""
            return PRODUCTS[3] if "attention_forward" in caller else PRODUCTS[4]
    return None


def part_of_product(leaf):
    """kernel, store (the tile's store and epilogue), packing or rest of a product's call."""
    if "store_row" in leaf:
        return "store"
    if any(k in leaf for k in ("kernel_rows", "kernel_6x64", "kernel<", "gebp_kernel", "multiply_block", "tile(",
                               "rows_product_packed")):
        return "kernel"
    if any(k in leaf for k in ("pack_b", "pack_bt", "gemm_pack", "rows_product_any", "rows_product<")):
        return "packing"
    return "rest"


STAGES = (
    ("scale, + mask, softmax and the score check (attention rows)", ("attention_row", "softmax")),
    ("LayerNorm", ("layer_norm",)),
    ("finiteness checks of the trace (all_finite)", ("all_finite",)),
    ("mask (build_mask)", ("build_mask",)),
    ("embedding and positional encoding", ("embed", "positional_encoding")),
)


def stage_of(stack_names):
    """A non-product stage, from the demangled stack (leaf first)."""
    leaf = stack_names[0]
    if leaf.startswith("[k]"):
        return "operating system (page faults, scheduling)"
    if any(k in leaf for k in ("malloc", "free", "operator new", "operator delete", "_int_", "realloc")):
        return "allocation"
    if "GOMP" in leaf or "gomp" in leaf or "omp_" in leaf:
        return "threads (OpenMP)"
    for label, keys in STAGES:
        for name in stack_names:
            if any(k in name for k in keys):
                return label
            if "attention_forward" in name or "encoder_layer_forward" in name:
                break
    # Eigen assignments and copies, by the engine function they are in
    for name in stack_names:
        if "attention_forward" in name:
            return "copies in attention_forward (head_out into concat)"
        if "encoder_layer_forward" in name:
            return "copies in encoder_layer_forward (residuals without the epilogue)"
        if name.startswith("attnlab::forward("):
            return "copies in forward (X = embedding + PE, the next layer's X)"
    return "other: " + leaf.split("(")[0][:60]


def demangle(symbols):
    out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True, check=True)
    return dict(zip(symbols, out.stdout.split("\n")))


def read_stacks(perf_data):
    """Each sample's stack, leaf first, as (ip, symbol) pairs; kernel frames marked."""
    text = subprocess.run(["perf", "script", "-i", perf_data, "--no-demangle", "-F", "ip,sym"],
                          capture_output=True, text=True, check=True).stdout
    stacks, current = [], []
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            if current:
                stacks.append(current)
            current = []
            continue
        parts = line.split(None, 1)
        ip = parts[0]
        sym = parts[1] if len(parts) > 1 else "[unknown]"
        if sym.endswith(" (inlined)"):
            sym = sym[: -len(" (inlined)")]
        if ip.startswith("ffffffff"):
            sym = "[k]" + sym
        current.append(sym)
    if current:
        stacks.append(current)
    return stacks


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "app", "attnlab-headless"))
    parser.add_argument("--t", type=int, default=128)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--isa", choices=("avx512", "avx2", "baseline"))
    parser.add_argument("--freq", type=int, default=2000, help="samples per second of CPU time")
    parser.add_argument("--keep", help="keep perf.data in this folder")
    args = parser.parse_args()

    env = dict(os.environ)
    if args.isa:
        env["ATTNLAB_ISA"] = args.isa
    folder = args.keep or tempfile.mkdtemp(prefix="attnlab-profile-")
    os.makedirs(folder, exist_ok=True)
    data = os.path.join(folder, "perf.data")
    bench = [args.binary, "bench", "--t", str(args.t), "--d-model", str(args.d_model), "--heads",
             str(args.heads), "--repeats", str(args.repeats), "--threads", str(args.threads)]
    record = ["perf", "record", "-q", "-F", str(args.freq), "-g", "--call-graph", "dwarf,8192", "-o", data,
              "--"] + bench
    result = subprocess.run(record, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("perf record failed:\n" + result.stderr)
    print(result.stdout.strip())

    stacks = read_stacks(data)
    names = demangle(sorted({s for stack in stacks for s in stack if not s.startswith("[k]")}))
    engine, setup = [], 0
    for stack in stacks:
        shown = [names.get(s, s) for s in stack]
        if not any("attnlab::Engine::run(" in s for s in shown):
            continue
        if any(k in s for s in shown for k in ("init_weights", "pack_weights")):
            setup += 1
            continue
        engine.append((stack, shown))
    if not engine:
        sys.exit("no samples inside Engine::run (is perf allowed to sample? see perf_event_paranoid)")

    per_product = collections.defaultdict(collections.Counter)
    stages = collections.Counter()
    for stack, shown in engine:
        product = product_of(stack, names)
        if product:
            per_product[product][part_of_product(shown[0])] += 1
        else:
            stages[stage_of(shown)] += 1

    total = len(engine)
    runs = args.repeats + 2  # the bench's two warm-up runs are inside Engine::run too
    ms = 1000.0 / args.freq / runs  # CPU milliseconds per run of one sample

    def row(label, count):
        print(f"| {label} | {100.0 * count / total:.1f} % | {count * ms:.3f} |")

    print(f"\nperf samples inside Engine::run: {total} ({total * ms:.2f} ms of CPU time per run, {runs} runs; "
          f"{setup} more in the first run's weight making and packing, left out)\n")
    print("| where | share of Engine::run | CPU ms per run |")
    print("|---|---|---|")
    product_total = 0
    for product in PRODUCTS:
        parts = per_product.get(product)
        if not parts:
            continue
        count = sum(parts.values())
        product_total += count
        detail = ", ".join(f"{part} {100.0 * n / total:.1f} %" for part, n in parts.most_common())
        row(f"{product}: {detail}", count)
    row("**all products**", product_total)
    kernel = sum(parts["kernel"] + parts["store"] for parts in per_product.values())
    packing = sum(parts["packing"] for parts in per_product.values())
    row("products: kernel and its store", kernel)
    row("products: packing the right operand", packing)
    for label, count in stages.most_common():
        row(label, count)


if __name__ == "__main__":
    main()
