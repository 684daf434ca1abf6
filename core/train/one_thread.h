// OneThread: the matrix products run on the calling thread alone while one lives.
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab::train
{

// Tiny products are slower split between threads (measured: 67 against 8 ms a step on 2 cores), and the other
// core belongs to the window. It sets this thread's OpenMP thread count, which is what Eigen::nbThreads() and
// so gemm() read, unless a program fixed it for all threads with Eigen::setNbThreads.
class OneThread
{
public:
#ifdef _OPENMP
    OneThread() : saved_(omp_get_max_threads())
    {
        omp_set_num_threads(1);
    }
    ~OneThread()
    {
        omp_set_num_threads(saved_);
    }
    OneThread(const OneThread&) = delete;
    OneThread& operator=(const OneThread&) = delete;

private:
    int saved_;
#endif
};

} // namespace attnlab::train
