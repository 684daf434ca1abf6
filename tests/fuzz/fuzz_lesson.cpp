// Fuzz target: lesson files (parse_lesson), which the app loads from assets/lessons/ at start.
//
// parse_lesson runs the engine on every step's session to check what the step points at. Sessions within the
// engine's limits can still take seconds and gigabytes, which is the engine's business, not the parser's: the
// target skips inputs whose sessions are large (sizes above 64, long texts, many steps) so that the fuzzer
// spends its time in the parser. Inputs that are not JSON, or nest too deeply to look at, go to the loader.
#include "core/io/lesson_file.h"
#include "fuzz_support.h"

#include <string>

using namespace attnlab;
using json = nlohmann::json;

namespace
{

bool small_sessions(const json& root)
{
    bool small = true;
    fuzz::for_each_member(root,
                          [&](const std::string& key, const json& value)
                          {
                              if (key == "d_model" || key == "d_k" || key == "d_v" || key == "d_ff")
                                  small = small && !(value.is_number() && value.get<double>() > 64);
                              else if (key == "heads" || key == "layers")
                                  small = small && !(value.is_number() && value.get<double>() > 8);
                              else if (key == "steps")
                                  small = small && !(value.is_array() && value.size() > 16);
                              else if (key == "session" && value.is_object())
                              {
                                  size_t length = 0;
                                  for (const char* text : {"text", "target"})
                                      if (const auto it = value.find(text); it != value.end())
                                          length += it->dump().size();
                                  small = small && length <= 256;
                              }
                          });
    return small;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = fuzz::as_text(data, size);
    json root;
    if (fuzz::peek_json(text, &root) && !small_sessions(root))
        return -1; // not kept in the corpus
    Lesson lesson;
    (void)parse_lesson(text, "assets/lessons/01_fuzz.json", &lesson);
    return 0;
}
