// Fuzz target: trained model files, "attnlab-model" (parse_model_json), which the app loads to show a model
// trained by `attnlab train`. Besides not crashing, a model that loads must write and load back to the same
// bytes (model_file.h promises a bit-identical round trip).
#include "core/io/model_file.h"
#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>

using namespace attnlab;

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    fuzz::single_thread();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    TrainedModel model;
    if (!parse_model_json(fuzz::as_text(data, size), "fuzz.json", &model))
        return 0;
    const std::string saved = model_to_json(model);
    TrainedModel again;
    const Status reloaded = parse_model_json(saved, "saved.json", &again);
    if (!reloaded)
    {
        std::fprintf(stderr, "a written model does not load: %s\n", reloaded.message().c_str());
        std::abort();
    }
    if (model_to_json(again) != saved)
    {
        std::fprintf(stderr, "write -> load -> write changed the model file\n");
        std::abort();
    }
    return 0;
}
