// Whether two trainers hold the same model bit for bit: every trained tensor, by name and shape, compared
// byte for byte (a seeded run is reproducible on one machine).
#pragma once

#include "core/train/trainer.h"

#include <cstring>

namespace attnlab::test
{

inline bool same_params(train::Trainer& a, train::Trainer& b)
{
    const std::vector<train::NamedTensor> x = a.tensors(), y = b.tensors();
    if (x.size() != y.size())
        return false;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        const train::MatT<float>& p = *x[i].value;
        const train::MatT<float>& q = *y[i].value;
        if (x[i].name != y[i].name || p.rows() != q.rows() || p.cols() != q.cols() ||
            std::memcmp(p.data(), q.data(), sizeof(float) * static_cast<std::size_t>(p.size())) != 0)
            return false;
    }
    return true;
}

} // namespace attnlab::test
