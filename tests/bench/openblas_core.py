# Which OpenBLAS kernel the PyTorch benches run, and how to pick one (shared by tests/bench/torch_*.py).
#
# Debian's torch calls whatever libblas.so.3 is installed: OpenBLAS with libopenblas0-pthread (`bash .ci/dev
# reference`), the reference BLAS otherwise. OpenBLAS is built for every x86-64 kernel ("core") and picks one
# from cpuid when it loads; a release older than the CPU falls back to an old core (OpenBLAS 0.3.21 on a 2023
# Xeon picks Prescott, SSE3). OPENBLAS_CORETYPE=<core> forces one, and must be set before torch is imported:
# choose() does that for --coretype, describe() says afterwards which core ran, read from the loaded library.
import ctypes
import os

# The widest core of OpenBLAS 0.3.21 for the instructions a CPU has, widest first: its AVX-512 kernels
# (SkylakeX; Cooperlake adds bfloat16 kernels only, and 0.3.21 runs Cooperlake when asked for SapphireRapids),
# the AVX2 ones (Haswell), else its own choice.
CORES_BY_FLAGS = (("SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}),
                  ("Haswell", {"avx2", "fma"}))


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def widest_core():
    """The core CORES_BY_FLAGS gives this CPU, or None (leave it to OpenBLAS)."""
    flags = cpu_flags()
    for core, needs in CORES_BY_FLAGS:
        if needs <= flags:
            return core
    return None


def add_argument(parser):
    parser.add_argument("--coretype", default="",
                        help="OpenBLAS core to run (OPENBLAS_CORETYPE, e.g. SkylakeX, Haswell, Prescott); "
                             "'auto': the widest this CPU's instructions allow (SkylakeX with AVX-512, Haswell "
                             "with AVX2); default: OPENBLAS_CORETYPE as set, else OpenBLAS's own choice")


def choose(coretype):
    """Sets OPENBLAS_CORETYPE for --coretype (before torch is imported; child processes inherit it)."""
    if coretype == "auto":
        coretype = widest_core() or ""
    if coretype:
        os.environ["OPENBLAS_CORETYPE"] = coretype


def loaded_blas():
    """Paths of the BLAS libraries mapped into this process (after torch is imported)."""
    paths = []
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            name = os.path.basename(path)
            if ("openblas" in name or name.startswith("libblas")) and path not in paths:
                paths.append(path)
    return paths


def describe():
    """'openblas_core=SkylakeX openblas_config="OpenBLAS 0.3.21 ..."' from the loaded library, the
    OPENBLAS_CORETYPE in force, and a note when the core is narrower than the CPU allows."""
    env = os.environ.get("OPENBLAS_CORETYPE", "")
    for path in loaded_blas():
        lib = ctypes.CDLL(path)
        if not hasattr(lib, "openblas_get_corename"):
            continue
        lib.openblas_get_corename.restype = ctypes.c_char_p
        lib.openblas_get_config.restype = ctypes.c_char_p
        core = lib.openblas_get_corename().decode()
        text = 'openblas_core=%s openblas_config="%s" OPENBLAS_CORETYPE=%s' % (
            core, lib.openblas_get_config().decode(), env or "(unset)")
        widest = widest_core()
        if widest and core.lower() != widest.lower() and not env:
            text += " (this CPU can run %s: --coretype %s or OPENBLAS_CORETYPE=%s)" % (widest, widest, widest)
        return text
    blas = loaded_blas()
    return "openblas_core=none blas=%s (not OpenBLAS: install libopenblas0-pthread, bash .ci/dev reference)" % (
        ",".join(blas) or "not loaded")
