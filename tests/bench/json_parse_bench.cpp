// Timing tool for the JSON loaders on hostile files (arrays of millions of empty objects where a list is
// read): run by hand, never by ctest.
//
//   attnlab_json_parse_bench weights 100000 200000 400000 800000   a weights file with N `{}` in "layers"
//   attnlab_json_parse_bench others 100000                          N `{}` in a session's "text", a model's
//                                                                   "history" and a lesson's "steps"
//   attnlab_json_parse_bench limit                                  a weights file of `{}` just under 256 MB
//
// Each line gives the file's size, the seconds the loader took (it refuses every one of these files, after
// parsing) and the process's peak resident memory so far.
#include "core/io/atomic_file.h"
#include "core/io/json_io.h"
#include "core/io/lesson_file.h"
#include "core/io/model_file.h"
#include "core/io/session_file.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace
{

using namespace attnlab;

// prefix, then n copies of "{}" separated by commas, then suffix.
std::string empty_objects(const std::string& prefix, long long n, const std::string& suffix)
{
    std::string text;
    text.reserve(prefix.size() + static_cast<std::size_t>(n) * 3 + suffix.size());
    text += prefix;
    for (long long i = 0; i < n; ++i)
        text += i > 0 ? ",{}" : "{}";
    text += suffix;
    return text;
}

long peak_rss_mb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

void time_loader(const char* name, long long n, const std::string& text,
                 const std::function<Status(std::string_view)>& load)
{
    const auto start = std::chrono::steady_clock::now();
    const Status status = load(text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string reason = status ? std::string("loaded") : status.message();
    if (reason.size() > 90)
        reason = reason.substr(0, 90) + "...";
    std::printf("%-10s n=%-9lld %8.1f MB %9.3f s  peak %6ld MB  %s\n", name, n,
                static_cast<double>(text.size()) / 1e6, seconds, peak_rss_mb(), reason.c_str());
    std::fflush(stdout);
}

Status load_weights(std::string_view text)
{
    ModelWeights weights;
    return parse_weights_json(text, "w.json", Config{}, &weights);
}

void weights(long long n)
{
    time_loader("weights", n, empty_objects(R"({"weights":{"layers":[)", n, "]}}"), load_weights);
}

void others(long long n)
{
    time_loader("session", n, empty_objects(R"({"format":"attnlab-session","version":1,"text":[)", n, "]}"),
                [](std::string_view text)
                {
                    Session session;
                    return session_from_json(text, "s.json", &session);
                });
    time_loader("model", n, empty_objects(R"({"format":"attnlab-model","version":1,"history":[)", n, "]}"),
                [](std::string_view text)
                {
                    TrainedModel model;
                    return parse_model_json(text, "m.json", &model);
                });
    time_loader("lesson", n,
                empty_objects(R"({"format":"attnlab-lesson","version":1,"title":"t","steps":[)", n, "]}"),
                [](std::string_view text)
                {
                    Lesson lesson;
                    return parse_lesson(text, "l.json", &lesson);
                });
}

// The largest weights file a loader accepts to read, all of it `{}`.
void limit()
{
    const std::string prefix = R"({"weights":{"layers":[)", suffix = "]}}";
    const long long n =
        static_cast<long long>((kMaxWeightsFileBytes - prefix.size() - suffix.size() + 1) / 3);
    time_loader("limit {}", n, empty_objects(prefix, n, suffix), load_weights);
    // The same size of full-precision numbers, rows of 64 (a real model's weights look like this).
    std::string numbers = prefix + "[";
    numbers.reserve(kMaxWeightsFileBytes);
    long long count = 0;
    while (numbers.size() + 32 < kMaxWeightsFileBytes)
    {
        numbers += (count % 64 == 0 ? (count > 0 ? "],[" : "") : ",");
        numbers += "-0.0123456789";
        ++count;
    }
    numbers += "]" + suffix;
    time_loader("limit 0.1", count, numbers, load_weights);
}

} // namespace

int main(int argc, char** argv)
{
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "limit")
    {
        limit();
        return 0;
    }
    if ((what != "weights" && what != "others") || argc < 3)
    {
        std::fprintf(stderr, "usage: %s weights N... | others N... | limit\n", argv[0]);
        return 2;
    }
    for (int i = 2; i < argc; ++i)
    {
        const long long n = std::atoll(argv[i]);
        if (what == "weights")
            weights(n);
        else
            others(n);
    }
    return 0;
}
