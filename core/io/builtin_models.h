// Trained models that come with Attention Lab (assets/models): each made by one `attnlab train` command from
// a fixed seed (assets/models/README.md gives it), opened from File → Open built-in trained model and
// lessons.
#pragma once

#include "core/status.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

struct TrainedModel;

struct BuiltinModel
{
    const char* key;   // "austen": how lessons name it ("model": "austen")
    const char* file;  // "austen_text.json", in the models folder
    const char* title; // the menu's line: "Pride and Prejudice, characters: 2 layers x 4 heads, 2000 steps"
};

// Every built-in model, in menu order.
const std::vector<BuiltinModel>& builtin_models();
// The built-in model of that key, or nullptr.
const BuiltinModel* find_builtin_model(std::string_view key);
// "austen": the built-in keys, comma-separated (messages).
std::string builtin_model_keys();
// The folder holding the built-in models: $ATTNLAB_MODELS if set, else assets/models beside the sources.
std::string builtin_models_folder();
// The path of a built-in model's file in that folder.
std::string builtin_model_path(const BuiltinModel& model);
// Reads a built-in model (load_model_file on its path). Errors: an unknown key (the keys listed), or the
// file's own message, with a hint to set ATTNLAB_MODELS when the file is missing.
Status load_builtin_model(std::string_view key, TrainedModel* out);

} // namespace attnlab
