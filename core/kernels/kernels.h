// The hot matrix kernels, one set per instruction set, chosen once at start-up (core/cpu.h). Each set lives
// in its own source file compiled with its instruction set's flags (-mavx2 -mfma, -mavx512f ...), and those
// files include neither Eigen nor the standard library: a template shared with the rest of the program,
// compiled with wider instructions in one file, could be the copy the linker keeps for every caller, and the
// binary would then stop with an illegal instruction on an older CPU. Everything here is plain pointers and
// sizes; the callers (core/gemm.cpp, core/train/products.cpp) keep the packing space and the threads.
#pragma once

#include <cstddef>

namespace attnlab::kernels
{

using Index = std::ptrdiff_t; // Eigen::Index

// Packing space: at least `floats` floats, owned by the calling thread (it only grows). The kernels read it
// with unaligned loads: a baseline build aligns it to 16 bytes only.
using ScratchFn = float* (*)(Index floats);

// What a causal mask lets a block product skip (train::Lower, by value).
enum class Lower : int
{
    None = 0,
    A = 1, // A is lower triangular: its zero tiles are skipped
    C = 2, // only C's entries on and below the diagonal are needed
};

// The training engine's products (core/train/products.h says what each computes). Every entry is one
// multiply-add chain over k in order, on every instruction set that has FMA: the AVX2 and AVX-512 sets give
// the same bits for the same inputs.
struct TrainKernels
{
    const char* name;    // "avx2-6x16", "avx512-6x32"
    Index panel_columns; // the columns of one packed panel of B (a thread's slab of C starts on a multiple)

    // C (m x n, rows ldc apart) = (or +=, when accumulate) A (m x k) op(B), op(B) = B (k x n) or, with
    // trans_b, Bᵀ of a B stored n x k (packed into scratch first). All row-major, rows lda / ldb apart.
    void (*a_times_b)(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, bool trans_b,
                      Index n, float* C, Index ldc, bool accumulate, Lower lower, ScratchFn scratch);
    // C (m x n) = Aᵀ B, A (k x m), B (k x n), rows lda, ldb, ldc apart, both read in place.
    void (*at_times_b)(const float* A, Index lda, Index m, Index k, const float* B, Index ldb, Index n,
                       float* C, Index ldc, Lower lower);

    // y = softmax(x / τ) over n entries, given 1 / τ (> 0); -inf entries and those under the smallest normal
    // float get exactly 0; a row of only -inf gives zeros and false. y may be x.
    bool (*softmax_row)(const float* x, Index n, float inv_temperature, float* y);
    // One row of attention's middle stages (core/softmax.h's attention_row, the same bits): scaled = scores ·
    // scale and masked = scaled + mask, both streamed to memory, then weights = softmax(masked / τ); false
    // for a row of only -inf (zero weights). *scores_finite: whether every score is finite (when not, the
    // weights are unspecified: the engine refuses such a trace). A null mask is one of zeros: + 0.0f, the
    // same bits as a mask of +0.0f, without its reads.
    bool (*attention_row)(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                          float* scaled, float* masked, float* weights, bool* scores_finite);
    // Each of the rows x n row-major rows: y = (x − mean) rstd γ + β, rstd = 1 / √(var + epsilon), with the
    // mean and rstd of each row kept.
    void (*layer_norm_rows)(const float* x, Index rows, Index n, const float* gamma, const float* beta,
                            float* y, float* mean, float* rstd, float epsilon);
    // Its backward pass: dx += ∂L/∂x; dgamma and dbeta (n each) are overwritten with the sums over the rows.
    void (*layer_norm_backward_rows)(const float* dy, const float* x, Index rows, Index n, const float* mean,
                                     const float* rstd, const float* gamma, float* dx, float* dgamma,
                                     float* dbeta);
};

// What a product does to each entry of C after its whole sum, before C is stored, each step optional and in
// this order: C += bias (bias[j] on column j), C = max(0, C) (relu: C when C is NaN or ±0, as Eigen's
// cwiseMax(0)), then sum = add + C (add and sum m x n, rows n apart; C is stored as well). The same
// operations, in the same order, as passes over C after the product: the same bits.
struct Epilogue
{
    const float* bias;
    bool relu;
    const float* add;
    float* sum;
};

// The forward engine's products (core/gemm.h): C (m x n, rows n apart) = A (m x k, rows k apart) op(B), op(B)
// = B (k x n) or, with trans_b, Bᵀ of a B stored n x k.
struct GemmKernels
{
    const char* name; // "avx512-6x64", "avx2-6x16"
    void (*rows_product)(bool trans_b, const float* A, Index m, Index k, const float* B, Index n, float* C,
                         ScratchFn scratch);
    // Floats of op(B) (k x n) packed whole, for a right operand that meets many products (the weights).
    Index (*packed_floats)(Index k, Index n);
    // op(B) packed into Bp (packed_floats(k, n) floats): every block rows_product would pack, in its order.
    void (*pack)(bool trans_b, const float* B, Index k, Index n, float* Bp);
    // rows_product with op(B) packed by pack: the same kernel calls on the same panels, so the same bits;
    // epilogue (may be null) applied in the kernel's store after the last block of k.
    void (*rows_product_packed)(const float* A, Index m, Index k, const float* Bp, Index n, float* C,
                                const Epilogue* epilogue);
};

// The sets this build has (null where the build is not for x86-64). Only call a set's functions on a CPU that
// has its instructions: core/cpu.h's active_isa() says which.
const TrainKernels* train_kernels_avx2();
// The AVX2 set's rows (TrainKernels says what each computes): the AVX-512 set shares the LayerNorm rows and
// has its own softmax and attention rows on 16 lanes, with the same bits.
bool softmax_row_avx2(const float* x, Index n, float inv_temperature, float* y);
bool attention_row_avx2(const float* scores, const float* mask, Index n, float scale, float inv_temperature,
                        float* scaled, float* masked, float* weights, bool* scores_finite);
void layer_norm_rows_avx2(const float* x, Index rows, Index n, const float* gamma, const float* beta,
                          float* y, float* mean, float* rstd, float epsilon);
void layer_norm_backward_rows_avx2(const float* dy, const float* x, Index rows, Index n, const float* mean,
                                   const float* rstd, const float* gamma, float* dx, float* dgamma,
                                   float* dbeta);
const TrainKernels* train_kernels_avx512();
const GemmKernels* gemm_kernels_avx512();
// The forward products on AVX2: the training set's 6 x 16 tiles, with the weights packable once.
const GemmKernels* gemm_kernels_avx2();

// Probes of one core's peak float rate: `iterations` rounds of 12 independent multiply-add chains of full
// vectors held in registers (enough chains to cover two FMA units' latency), kFmaProbeChains x lanes x 2
// flops a round, chain j starting from 1 + j / 64; the result is the sum of every chain's lanes, so the work
// cannot be skipped. Only on a CPU with the set.
constexpr Index kFmaProbeChains = 12;
float fma_probe_avx2(Index iterations);   // 8 lanes
float fma_probe_avx512(Index iterations); // 16 lanes

} // namespace attnlab::kernels
