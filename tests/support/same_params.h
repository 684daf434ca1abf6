// Whether two trainers hold the same model bit for bit: every trained tensor, by name and shape, compared
// byte for byte (a seeded run is reproducible on one machine); and the three trainers such a test compares.
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

// a and b from the same preset, c from it with model and data seeds 2 (the run that must differ).
inline Status init_twins_and_other(const train::Task& task, const train::Preset& preset, train::Trainer& a,
                                   train::Trainer& b, train::Trainer& c)
{
    train::Preset other = preset;
    other.model.seed = other.train.data_seed = 2;
    if (Status s = a.init(task, preset); !s)
        return s;
    if (Status s = b.init(task, preset); !s)
        return s;
    return c.init(task, other);
}

} // namespace attnlab::test
