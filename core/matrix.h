// Matrix types shared by the whole engine: row-major float, so a matrix's memory is a texture's rows.
#pragma once

#include <Eigen/Core>

namespace attnlab
{

// Every matrix in the engine. Row-major so softmax walks contiguous rows and a heatmap uploads as is.
using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A row vector (biases, LayerNorm gain and shift): added to every row of a T x n matrix.
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace attnlab
