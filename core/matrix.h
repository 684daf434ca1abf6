// Matrix types shared by the whole engine: row-major float, so a matrix's memory is a texture's rows.
#pragma once

// GCC 12's AVX-512 intrinsics read a variable before setting it on purpose (`__m512 __Y = __Y;`, GCC bug
// 105593): inlined through Eigen's kernels, that is a -Wmaybe-uninitialized warning in every file that
// multiplies matrices. It is silenced for the lines of those headers alone, by including them here, first,
// under the pragma (diagnostics are classified by the location they point at), so warnings stay errors
// everywhere else.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include <Eigen/Core>

namespace attnlab
{

// Every matrix in the engine. Row-major so softmax walks contiguous rows and a heatmap uploads as is.
using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A row vector (biases, LayerNorm gain and shift): added to every row of a T x n matrix.
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace attnlab
