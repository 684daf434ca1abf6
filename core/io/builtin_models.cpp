// The table of trained models in assets/models and where their files are found.
#include "core/io/builtin_models.h"

#include "core/assets.h"
#include "core/io/model_file.h"

#include <cstdlib>
#include <filesystem>

namespace attnlab
{

const std::vector<BuiltinModel>& builtin_models()
{
    static const std::vector<BuiltinModel> models = {
        {"austen", "austen_text.json",
         "Pride and Prejudice, characters: 2 layers x 4 heads, repeat 0.5, 3000 steps"},
    };
    return models;
}

const BuiltinModel* find_builtin_model(std::string_view key)
{
    for (const BuiltinModel& m : builtin_models())
        if (key == m.key)
            return &m;
    return nullptr;
}

std::string builtin_model_keys()
{
    std::string keys;
    for (const BuiltinModel& m : builtin_models())
        keys += (keys.empty() ? "" : ", ") + std::string(m.key);
    return keys;
}

std::string builtin_models_folder()
{
    if (const char* env = std::getenv("ATTNLAB_MODELS"); env && *env)
        return env;
    return asset_path("models");
}

std::string builtin_model_path(const BuiltinModel& model)
{
    return builtin_models_folder() + "/" + model.file;
}

Status load_builtin_model(std::string_view key, TrainedModel* out)
{
    const BuiltinModel* m = find_builtin_model(key);
    if (m == nullptr)
        return Status::error("\"" + std::string(key) + "\" is not a built-in model: use one of " +
                             builtin_model_keys());
    const std::string path = builtin_model_path(*m);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return Status::error(path +
                             ": the built-in model is missing (set ATTNLAB_MODELS to the models folder, or "
                             "ATTNLAB_ASSETS to the data folder that holds it)");
    return load_model_file(path, out);
}

} // namespace attnlab
