// Lesson files: parsing, validation against the engine's real shapes, and loading a folder of them.
#include "lesson_file.h"

#include "atomic_file.h"
#include "core/engine.h"
#include "core/settings.h"
#include "core/train/token_text.h"
#include "json_parse.h"
#include "session_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>

namespace attnlab
{

namespace
{

using json = nlohmann::json;

struct Context
{
    std::string where; // "lessons/02_typo.json, step 3"
    Status error(const std::string& what) const { return Status::error(where + ": " + what); }
};

Status read_string_unchecked(const json& object, const char* key, bool required, const Context& ctx,
                             std::string* out)
{
    const auto it = object.find(key);
    if (it == object.end())
        return required ? ctx.error(std::string("\"") + key + "\" is missing") : Status::ok();
    if (it->is_string())
    {
        *out = it->get<std::string>();
        return Status::ok();
    }
    if (it->is_array() && std::all_of(it->begin(), it->end(), [](const json& s) { return s.is_string(); }))
    {
        // A paragraph may be written as a list of lines; they are joined with spaces.
        std::string joined;
        for (const json& s : *it)
            joined += (joined.empty() ? "" : " ") + s.get<std::string>();
        *out = joined;
        return Status::ok();
    }
    return ctx.error(std::string("\"") + key + "\" must be a string, got " + json_excerpt(*it));
}

// Lesson text is shown in the window and printed by `attnlab lessons`: a control character (a terminal
// escape sequence, a bell) is refused rather than passed on to a terminal.
Status check_plain_text(const std::string& text, const char* key, const Context& ctx)
{
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7F)
        {
            char code[8];
            std::snprintf(code, sizeof code, "U+%04X", c);
            return ctx.error(std::string("\"") + key + "\" contains the control character " + code +
                             " at byte " + std::to_string(i) + "; lesson text is plain text");
        }
    }
    return Status::ok();
}

Status read_string(const json& object, const char* key, bool required, const Context& ctx, std::string* out)
{
    const Status status = read_string_unchecked(object, key, required, ctx, out);
    if (!status)
        return status;
    return check_plain_text(*out, key, ctx);
}

Status read_int(const json& object, const char* key, int min, const Context& ctx, int* out)
{
    const auto it = object.find(key);
    if (it == object.end())
        return Status::ok();
    if (!it->is_number_integer() || it->get<long long>() < min || it->get<long long>() > 1000000)
        return ctx.error(std::string("\"") + key + "\" must be an integer >= " + std::to_string(min) +
                         ", got " + json_excerpt(*it));
    *out = it->get<int>();
    return Status::ok();
}

// One of a few names, mapped to its enum value; absent leaves *out as it is. The message lists the names.
template <typename Enum>
Status read_choice(const json& object, const char* key,
                   std::initializer_list<std::pair<const char*, Enum>> choices, const Context& ctx, Enum* out)
{
    const auto it = object.find(key);
    if (it == object.end())
        return Status::ok();
    std::string names;
    for (const auto& [name, value] : choices)
    {
        if (*it == name)
        {
            *out = value;
            return Status::ok();
        }
        names += (names.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    return ctx.error(std::string("\"") + key + "\" must be one of " + names + ", got " + json_excerpt(*it));
}

Status read_stage(const json& value, const Context& ctx, Stage* out)
{
    // A step's session runs on seeded weights: only the stages the seeded engine computes can be shown.
    const Stage stage = value.is_string() ? stage_from_key(value.get<std::string>()) : Stage::Count;
    if (stage == Stage::Count || !stage_info(stage).seeded)
    {
        std::string keys;
        for (const StageInfo& info : stage_table())
            if (info.seeded)
                keys += (keys.empty() ? "" : ", ") + std::string(info.key);
        return ctx.error("unknown stage " + json_excerpt(value) + ": use one of " + keys);
    }
    *out = stage_from_key(value.get<std::string>());
    return Status::ok();
}

Status check_unknown(const json& object, std::initializer_list<const char*> known, const Context& ctx)
{
    for (auto it = object.begin(); it != object.end(); ++it)
        if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; }))
            return ctx.error("unknown key \"" + it.key() + "\"");
    return Status::ok();
}

// Checks that what a step highlights exists in its session: the session is validated and tokenized, and the
// shapes come from the config and the lengths, so loading a lesson computes no forward pass (a step at
// T = 2048 costs its tokenizer, not seconds of attention). Whether its weights load is checked when the step
// is shown.
Status check_step_shapes(const LessonStep& step, const Context& ctx)
{
    TokenBatch source, target;
    if (Status s = prepare_inputs(step.session, source, target); !s)
        return ctx.error("its session is invalid: " + s.message());
    const Config& c = step.session.config;
    if (step.layer >= c.n_layers)
        return ctx.error("\"layer\" " + std::to_string(step.layer) +
                         " does not exist (layers: " + std::to_string(c.n_layers) + ", counted from 0)");
    if (step.head >= c.n_heads)
        return ctx.error("\"head\" " + std::to_string(step.head) +
                         " does not exist (h = " + std::to_string(c.n_heads) + ", counted from 0)");
    if (step.sentence >= source.batch_size())
        return ctx.error("\"sentence\" " + std::to_string(step.sentence) +
                         " does not exist (B = " + std::to_string(source.batch_size()) + ", counted from 0)");
    const bool has_cross = target.batch_size() > 0;
    if (step.cross && !has_cross)
        return ctx.error("\"cross\" is true but the session has no target text");
    for (const LessonCell& cell : step.cells)
    {
        const StageInfo& info = stage_info(cell.stage);
        if (step.cross && !info.attention_block)
            return ctx.error(std::string("stage \"") + info.key + "\" is not part of cross-attention");
        const StageDims d = step.cross ? stage_dims(c, cell.stage, target.T, source.T, true)
                                       : stage_dims(c, cell.stage, source.T, source.T, false);
        if (cell.row >= d.rows || cell.col >= d.cols)
            return ctx.error("cell (" + std::to_string(cell.row) + ", " + std::to_string(cell.col) +
                             ") of \"" + info.key + "\" is outside its " + std::to_string(d.rows) + "x" +
                             std::to_string(d.cols) + " matrix");
    }
    return Status::ok();
}

// The "training" object of a step (the lesson's, with the step's patched in).
Status read_run(const json& j, const Context& ctx, const LessonRun& base, LessonRun* out)
{
    if (!j.is_object())
        return ctx.error("a training run must be an object such as {\"task\": \"reverse\", \"steps\": 200}");
    if (Status s = check_unknown(
            j, {"task", "layers", "heads", "d_model", "attention_only", "lr", "seed", "steps"}, ctx);
        !s)
        return s;
    LessonRun r = base;
    if (const auto task = j.find("task"); task != j.end())
    {
        if (!task->is_string())
            return ctx.error("\"task\" must be a task id (list them with: attnlab tasks)");
        if (Status s = train::parse_task(task->get<std::string>(), &r.task); !s)
            return ctx.error(s.message());
    }
    for (auto [key, field] : {std::pair{"layers", &r.n_layers},
                              {"heads", &r.n_heads},
                              {"d_model", &r.d_model},
                              {"steps", &r.steps}})
        if (Status s = read_int(j, key, 1, ctx, field); !s)
            return s;
    if (const auto a = j.find("attention_only"); a != j.end())
    {
        if (!a->is_boolean())
            return ctx.error("\"attention_only\" must be true or false");
        r.attention_only = a->get<bool>() ? 1 : 0;
    }
    if (const auto lr = j.find("lr"); lr != j.end())
    {
        if (!lr->is_number() || !(lr->get<double>() > 0.0 && lr->get<double>() < 1.0))
            return ctx.error("\"lr\" must be a number between 0 and 1, got " + json_excerpt(*lr));
        r.lr = lr->get<float>();
    }
    if (const auto seed = j.find("seed"); seed != j.end())
    {
        if (!seed->is_number_unsigned())
            return ctx.error("\"seed\" must be a whole number >= 0");
        r.seed = seed->get<std::uint64_t>();
    }
    if (r.steps < 1 || r.steps > 20000)
        return ctx.error(
            "a training run needs \"steps\" from 1 to 20000 (it is trained when the step is shown)");
    train::Preset p = train::Task(r.task).preset();
    if (r.n_layers > 0)
        p.model.n_layers = r.n_layers;
    if (r.n_heads > 0)
        p.model.n_heads = r.n_heads;
    if (r.d_model > 0)
        p.model.d_model = r.d_model;
    p.model.vocab_size = train::Task(r.task).vocab_size();
    p.model.T_max = train::Task(r.task).T();
    if (Status s = train::validate(p.model); !s)
        return ctx.error("its training run is invalid: " + s.message());
    *out = r;
    return Status::ok();
}

Status read_training(const json& j, const Context& ctx, LessonTraining* out)
{
    if (!j.is_object())
        return ctx.error("\"training\" must be an object");
    if (Status s = check_unknown(j,
                                 {"task", "layers", "heads", "d_model", "attention_only", "lr", "seed",
                                  "steps", "compare", "show_step", "map", "score", "probe"},
                                 ctx);
        !s)
        return s;
    LessonTraining t;
    t.on = true;
    json run = j;
    for (const char* key : {"compare", "show_step", "map", "score", "probe"})
        run.erase(key);
    if (Status s = read_run(run, ctx, LessonRun{}, &t.run); !s)
        return s;
    if (const auto compare = j.find("compare"); compare != j.end())
    {
        if (!compare->is_array() || compare->size() > 3)
            return ctx.error(
                "\"compare\" must be a list of at most 3 runs (fields that differ from the run)");
        for (const json& c : *compare)
        {
            LessonRun r;
            if (Status s = read_run(c, ctx, t.run, &r); !s)
                return s;
            t.compare.push_back(r);
        }
    }
    if (Status s = read_int(j, "show_step", 0, ctx, &t.show_step); !s)
        return s;
    if (t.show_step > t.run.steps)
        return ctx.error("\"show_step\" " + std::to_string(t.show_step) + " is after the run's last step " +
                         std::to_string(t.run.steps));
    if (Status s = read_choice(j, "map", {{"attention", 0}, {"gradient", 1}, {"output", 2}, {"stages", 3}},
                               ctx, &t.map_kind);
        !s)
        return s;
    if (Status s = read_choice(
            j, "score", {{"previous-token", 0}, {"induction", 1}, {"diagonal", 2}, {"anti-diagonal", 3}}, ctx,
            &t.score_kind);
        !s)
        return s;
    if (Status s = read_string(j, "probe", false, ctx, &t.probe); !s)
        return s;
    if (!t.probe.empty())
    {
        const train::Task task(t.run.task);
        train::Batch batch;
        if (Status s = train::text_batch(t.probe, task.vocabulary(), task.T(), &batch); !s)
            return ctx.error("\"probe\": " + s.message());
    }
    *out = t;
    return Status::ok();
}

} // namespace

bool LessonRun::operator==(const LessonRun& o) const
{
    return task == o.task && n_layers == o.n_layers && n_heads == o.n_heads && d_model == o.d_model &&
           attention_only == o.attention_only && lr == o.lr && seed == o.seed && steps == o.steps;
}

Status parse_lesson(std::string_view text, const std::string& file, Lesson* out)
{
    Context ctx{file};
    json root;
    if (Status parsed = parse_json_text(text, &root); !parsed)
        return ctx.error(parsed.message());
    if (!root.is_object())
        return ctx.error("expected a JSON object with \"format\": \"attnlab-lesson\"");
    if (root.value("format", json()) != kLessonFormat)
        return ctx.error("\"format\" must be \"attnlab-lesson\"");
    const json version = root.value("version", json());
    if (!version.is_number_integer() || version.get<int>() < 1)
        return ctx.error("\"version\" must be a positive integer");
    if (version.get<int>() > kLessonVersion)
        return ctx.error("version " + json_excerpt(version) + " is newer than this program reads (" +
                         std::to_string(kLessonVersion) + ")");
    if (Status s = check_unknown(
            root, {"format", "version", "title", "summary", "session", "training", "steps"}, ctx);
        !s)
        return s;

    Lesson lesson;
    lesson.file = file;
    std::string stem = std::filesystem::path(file).stem().string();
    // "02_typo" -> "typo": a leading number orders the list and is not part of the id.
    const size_t underscore = stem.find('_');
    if (underscore != std::string::npos &&
        std::all_of(stem.begin(), stem.begin() + static_cast<long>(underscore), ::isdigit))
        stem = stem.substr(underscore + 1);
    lesson.id = stem;
    if (Status s = read_string(root, "title", true, ctx, &lesson.title); !s)
        return s;
    if (Status s = read_string(root, "summary", false, ctx, &lesson.summary); !s)
        return s;
    const json base = root.value("session", json::object());
    if (!base.is_object())
        return ctx.error("\"session\" must be an object (the fields of a session file)");
    const json base_training = root.value("training", json());
    if (!base_training.is_null() && !base_training.is_object())
        return ctx.error("\"training\" must be an object (the run every step trains, patched by the steps)");
    const auto steps = root.find("steps");
    if (steps == root.end() || !steps->is_array() || steps->empty())
        return ctx.error("\"steps\" must be a non-empty list");

    for (size_t i = 0; i < steps->size(); ++i)
    {
        const json& js = (*steps)[i];
        Context sctx{file + ", step " + std::to_string(i + 1)};
        if (!js.is_object())
            return sctx.error("each step must be an object");
        if (Status s = check_unknown(js,
                                     {"title", "text", "session", "stages", "cells", "cross", "layer",
                                      "sentence", "head", "view", "comparison", "setting", "training"},
                                     sctx);
            !s)
            return s;
        LessonStep step;
        if (Status s = read_string(js, "title", false, sctx, &step.title); !s)
            return s;
        if (Status s = read_string(js, "text", true, sctx, &step.text); !s)
            return s;
        // The step's session: the lesson's, with this step's fields patched in (objects merge key by key).
        json session = base;
        if (const auto patch = js.find("session"); patch != js.end())
        {
            if (!patch->is_object())
                return sctx.error("\"session\" must be an object");
            session.merge_patch(*patch);
        }
        session["format"] = kSessionFormat;
        session["version"] = kSessionVersion;
        if (Status s = session_from_json(session.dump(), sctx.where, &step.session); !s)
            return s;
        if (const auto stages = js.find("stages"); stages != js.end())
        {
            if (!stages->is_array())
                return sctx.error("\"stages\" must be a list of stage names");
            for (const json& st : *stages)
            {
                Stage stage{};
                if (Status s = read_stage(st, sctx, &stage); !s)
                    return s;
                step.stages.push_back(stage);
            }
        }
        if (const auto cells = js.find("cells"); cells != js.end())
        {
            if (!cells->is_array())
                return sctx.error("\"cells\" must be a list of {\"stage\", \"row\", \"col\"}");
            for (const json& jc : *cells)
            {
                if (!jc.is_object() || !jc.contains("stage"))
                    return sctx.error("each cell needs \"stage\", \"row\" and \"col\"");
                LessonCell cell;
                if (Status s = read_stage(jc["stage"], sctx, &cell.stage); !s)
                    return s;
                if (Status s = read_int(jc, "row", 0, sctx, &cell.row); !s)
                    return s;
                if (Status s = read_int(jc, "col", 0, sctx, &cell.col); !s)
                    return s;
                step.cells.push_back(cell);
            }
        }
        if (const auto cross = js.find("cross"); cross != js.end())
        {
            if (!cross->is_boolean())
                return sctx.error("\"cross\" must be true or false");
            step.cross = cross->get<bool>();
        }
        for (auto [key, field] :
             {std::pair{"layer", &step.layer}, {"sentence", &step.sentence}, {"head", &step.head}})
            if (Status s = read_int(js, key, 0, sctx, field); !s)
                return s;
        if (Status s = read_choice(js, "view",
                                   {{"pipeline", LessonView::Pipeline},
                                    {"heads", LessonView::Heads},
                                    {"comparisons", LessonView::Comparisons}},
                                   sctx, &step.view);
            !s)
            return s;
        if (js.contains("comparison"))
        {
            if (Status s = read_choice(js, "comparison",
                                       {{"packed", ComparisonSection::Packed},
                                        {"two_step", ComparisonSection::TwoStep},
                                        {"single_head", ComparisonSection::SingleHead}},
                                       sctx, &step.comparison);
                !s)
                return s;
            step.view = LessonView::Comparisons;
        }
        if (Status s = read_string(js, "setting", false, sctx, &step.setting); !s)
            return s;
        if (!step.setting.empty() && setting_from_key(step.setting) == nullptr)
            return sctx.error("\"setting\" \"" + step.setting +
                              "\" is not a Model panel setting; valid: " + setting_keys());
        if (Status s = check_step_shapes(step, sctx); !s)
            return s;
        // A training step: the lesson's run with the step's fields patched in.
        json training = base_training;
        if (const auto patch = js.find("training"); patch != js.end())
        {
            if (!patch->is_object())
                return sctx.error("\"training\" must be an object");
            if (training.is_null())
                training = json::object();
            training.merge_patch(*patch);
        }
        if (!training.is_null())
        {
            if (Status s = read_training(training, sctx, &step.training); !s)
                return s;
            step.view = LessonView::Training;
        }
        lesson.steps.push_back(std::move(step));
    }
    *out = std::move(lesson);
    return Status::ok();
}

LessonLibrary load_lessons(const std::string& dir)
{
    LessonLibrary library;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
    {
        library.errors.push_back(
            dir + ": lesson folder not found (set ATTNLAB_LESSONS to the assets/lessons folder)");
        return library;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files)
    {
        const std::string name = "lessons/" + path.filename().string();
        std::string text;
        if (Status s = read_file(path.string(), &text, kMaxSessionFileBytes, "lesson file"); !s)
        {
            library.errors.push_back(name + ": " + s.message());
            continue;
        }
        Lesson lesson;
        if (Status s = parse_lesson(text, name, &lesson); !s)
        {
            library.errors.push_back(s.message());
            continue;
        }
        // A step's weights file is named relative to the lesson file; it must be there (it is read when the
        // step is shown, so a lesson with a large model does not slow the start).
        std::string missing;
        for (LessonStep& step : lesson.steps)
        {
            step.session.weights_path = absolute_weights_path(path.string(), step.session.weights_path);
            std::error_code exists_ec;
            if (!step.session.weights_path.empty() &&
                !std::filesystem::is_regular_file(step.session.weights_path, exists_ec) && missing.empty())
                missing = step.session.weights_path;
        }
        if (!missing.empty())
        {
            library.errors.push_back(name + ": its weights file " + missing + " is missing");
            continue;
        }
        if (find_lesson(library, lesson.id))
        {
            library.errors.push_back(name + ": the id \"" + lesson.id + "\" is used by another lesson");
            continue;
        }
        library.lessons.push_back(std::move(lesson));
    }
    return library;
}

const Lesson* find_lesson(const LessonLibrary& library, const std::string& id)
{
    for (const Lesson& lesson : library.lessons)
        if (lesson.id == id)
            return &lesson;
    return nullptr;
}

std::string default_lessons_dir()
{
    if (const char* env = std::getenv("ATTNLAB_LESSONS"); env && *env)
        return env;
    return ATTNLAB_ASSETS_DIR "/lessons";
}

} // namespace attnlab
