// Lesson files: parsing, validation against the engine's real shapes, and loading a folder of them.
#include "lesson_file.h"
#include "builtin_models.h"

#include "atomic_file.h"
#include "core/assets.h"
#include "core/engine.h"
#include "core/settings.h"
#include "core/train/token_text.h"
#include "json_parse.h"
#include "json_reader.h"
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

using Context = JsonReader; // names the file and the step: "lessons/02_typo.json, step 3"

// A string, or a list of strings (a paragraph written as lines, joined with spaces).
Status read_string_unchecked(const json& object, const char* key, bool required, const Context& ctx,
                             std::string* out)
{
    const json* it = nullptr;
    ATTNLAB_TRY(ctx.member(object, "", key, required ? Need::Required : Need::Optional, &it));
    if (it == nullptr)
        return Status::ok();
    if (it->is_string())
    {
        *out = it->get<std::string>();
        return Status::ok();
    }
    if (it->is_array() && std::all_of(it->begin(), it->end(), [](const json& s) { return s.is_string(); }))
    {
        std::string joined;
        for (const json& s : *it)
            joined += (joined.empty() ? "" : " ") + s.get<std::string>();
        *out = joined;
        return Status::ok();
    }
    return ctx.expected(key, "a string or a list of strings (lines joined with spaces)", *it);
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

// An optional integer from min to 1,000,000 (absent: *out is kept).
Status read_int(const json& object, const char* key, int min, const Context& ctx, int* out)
{
    return ctx.integer(object, "", key, {min, 1000000}, out, Need::Optional);
}

// One of a few names, mapped to its enum value; absent leaves *out as it is. The message lists the names.
template <typename Enum>
Status read_choice(const json& object, const char* key,
                   std::initializer_list<std::pair<const char*, Enum>> choices, const Context& ctx, Enum* out)
{
    return ctx.choice(object, "", key, choices, out, Need::Optional);
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
    return ctx.unknown_keys(object, "", known);
}

// An object with none but the known keys; `not_object` is the message when it is not an object.
Status check_object(const json& j, const char* not_object, std::initializer_list<const char*> known,
                    const Context& ctx)
{
    if (!j.is_object())
        return ctx.error(not_object);
    return check_unknown(j, known, ctx);
}

// `base` with the object under `key` in `step` merged in, key by key (a null base becomes an object first).
Status patched(const json& base, const json& step, const char* key, const Context& ctx, json* out)
{
    *out = base;
    const auto patch = step.find(key);
    if (patch == step.end())
        return Status::ok();
    if (!patch->is_object())
        return ctx.error(std::string("\"") + key + "\" must be an object");
    if (out->is_null())
        *out = json::object();
    out->merge_patch(*patch);
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

// The most steps a lesson's run may take: it is trained when the step is shown.
constexpr int kMaxLessonSteps = 20000;

// A training run of a step: the task's preset with the fields given, checked as every run is
// (train::check_run).
Status read_run(const json& j, const Context& ctx, train::RunSpec* out)
{
    ATTNLAB_TRY(
        check_object(j, "a training run must be an object such as {\"task\": \"reverse\", \"steps\": 200}",
                     {"task", "layers", "heads", "d_model", "attention_only", "lr", "seed", "steps", "corpus",
                      "repeat", "level"},
                     ctx));
    train::TaskKind kind = train::TaskKind::Reverse;
    const json* task = nullptr;
    ATTNLAB_TRY(ctx.member(j, "", "task", Need::Optional, &task));
    if (task != nullptr && !task->is_string())
        return ctx.expected("task", "a task id (list them with: attnlab tasks)", *task);
    if (task != nullptr)
        if (Status s = train::parse_task(task->get<std::string>(), &kind); !s)
            return ctx.error(s.message());
    train::RunSpec r(kind);
    r.steps = 0; // required
    for (auto [key, field] : {std::pair{"layers", &r.n_layers},
                              {"heads", &r.n_heads},
                              {"d_model", &r.d_model},
                              {"steps", &r.steps}})
        if (Status s = read_int(j, key, 1, ctx, field); !s)
            return s;
    ATTNLAB_TRY(ctx.boolean(j, "", "attention_only", &r.attention_only, Need::Optional));
    ATTNLAB_TRY(ctx.real(j, "", "lr", RealRange{}, &r.lr, Need::Optional));
    ATTNLAB_TRY(ctx.uint64(j, "", "seed", &r.seed, Need::Optional));
    // Text only: the book (a built-in key; a lesson names no file of the reader's) and the repeat share.
    const bool text = kind == train::TaskKind::Text;
    if (!text)
    {
        ATTNLAB_TRY(ctx.absent(j, "", "corpus", "only a \"text\" run reads a corpus"));
        ATTNLAB_TRY(ctx.absent(j, "", "repeat", "only a \"text\" run repeats snippets"));
        ATTNLAB_TRY(ctx.absent(j, "", "level", "only a \"text\" run has a level (char or word)"));
    }
    std::string level = train::text_level_key(r.level);
    ATTNLAB_TRY(read_string(j, "level", false, ctx, &level));
    if (Status s = train::parse_text_level(level, &r.level); !s)
        return ctx.error("\"level\": " + s.message());
    ATTNLAB_TRY(read_string(j, "corpus", false, ctx, &r.corpus));
    if (text && train::find_builtin_corpus(r.corpus) == nullptr)
        return ctx.error("\"corpus\" \"" + r.corpus + "\" is not a built-in text: use one of " +
                         train::builtin_corpus_keys());
    ATTNLAB_TRY(
        ctx.real(j, "", "repeat", RealRange{0.0, 1.0, false, false, false}, &r.repeat, Need::Optional));
    if (r.steps < 1 || r.steps > kMaxLessonSteps)
        return ctx.error("a training run needs \"steps\" from 1 to " + std::to_string(kMaxLessonSteps) +
                         " (it is trained when the step is shown)");
    if (Status s = train::check_run(r, train::FieldNames::Key); !s)
        return ctx.error("its training run is invalid: " + s.message());
    *out = r;
    return Status::ok();
}

Status read_training(const json& j, const Context& ctx, LessonTraining* out)
{
    ATTNLAB_TRY(
        check_object(j, "\"training\" must be an object",
                     {"task", "layers", "heads", "d_model", "attention_only", "lr", "seed", "steps", "corpus",
                      "repeat", "compare", "show_step", "map", "score", "probe", "compare_maps", "model"},
                     ctx));
    LessonTraining t;
    t.on = true;
    json run = j;
    for (const char* key : {"compare", "show_step", "map", "score", "probe", "compare_maps", "model"})
        run.erase(key);
    if (Status s = read_run(run, ctx, &t.run); !s)
        return s;
    if (const auto compare = j.find("compare"); compare != j.end())
    {
        if (!compare->is_array() || compare->size() > 3)
            return ctx.error(
                "\"compare\" must be a list of at most 3 runs (fields that differ from the run)");
        for (const json& c : *compare)
        {
            // The step's run with this one's fields changed (a field the step's run leaves to the preset
            // stays the preset's, of this run's task).
            json patched = run;
            if (c.is_object())
                patched.merge_patch(c);
            train::RunSpec r;
            if (Status s = read_run(c.is_object() ? patched : c, ctx, &r); !s)
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
    if (Status s = read_choice(j, "score",
                               {{"previous-token", 0},
                                {"induction", 1},
                                {"diagonal", 2},
                                {"anti-diagonal", 3},
                                {"word-start", 4}},
                               ctx, &t.score_kind);
        !s)
        return s;
    if (Status s = read_int(j, "compare_maps", 0, ctx, &t.compare_maps); !s)
        return s;
    if (t.compare_maps >= static_cast<int>(t.compare.size()))
        return ctx.error("\"compare_maps\" " + std::to_string(t.compare_maps) +
                         " names no compared run (\"compare\" lists " + std::to_string(t.compare.size()) +
                         "; they count from 0)");
    if (t.compare_maps >= 0 && t.map_kind > 1)
        return ctx.error("\"compare_maps\" shows attention maps side by side: it needs \"map\" "
                         "\"attention\" or \"gradient\"");
    if (Status s = read_string(j, "probe", false, ctx, &t.probe); !s)
        return s;
    // A built-in trained model shown instead of the run: it must exist and be of the run's task.
    if (Status s = read_string(j, "model", false, ctx, &t.model); !s)
        return s;
    if (!t.model.empty() && find_builtin_model(t.model) == nullptr)
        return ctx.error("\"model\" \"" + t.model + "\" is not a built-in trained model: use one of " +
                         builtin_model_keys());
    if (!t.model.empty() && (!t.compare.empty() || t.show_step >= 0))
        return ctx.error("\"model\" shows a saved model at its last step: it takes no \"compare\" and no "
                         "\"show_step\" (set them to null in that step)");
    if (!t.probe.empty())
    {
        // A text run's probe is characters or words (any of them: an unseen one reads as the unknown symbol),
        // the other tasks' tokens of their vocabulary.
        const train::Task task(t.run.task);
        train::Batch batch;
        Status s = Status::ok();
        if (t.run.task == train::TaskKind::Text)
            s = train::plain_text_batch(t.probe,
                                        t.run.level == train::TextLevel::Word
                                            ? train::TextVocabulary(train::WordVocabulary())
                                            : train::TextVocabulary(train::CharVocabulary()),
                                        task.T(), &batch);
        else
            s = train::text_batch(t.probe, task.vocabulary(), task.T(), &batch);
        if (!s)
            return ctx.error("\"probe\": " + s.message());
    }
    *out = t;
    return Status::ok();
}

// Why a step's weights file cannot be read, or "" when it is a regular file (or there is none).
std::string weights_file_problem(const std::string& path)
{
    if (path.empty())
        return "";
    namespace fs = std::filesystem;
    const std::string named = "its weights file " + path_for_message(path);
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found)
        return named + (fs::is_symlink(fs::symlink_status(path, ec))
                            ? " is a link to a file that does not exist"
                            : " is missing");
    if (ec)
        return "cannot read " + named + ": " + ec.message();
    if (fs::is_directory(status))
        return named + " is a folder, not a weights file";
    if (!fs::is_regular_file(status))
        return named +
               " is not a regular file (a device, a FIFO or a socket); give the path of a weights file";
    return "";
}

// The lesson's id from its file name: "lessons/02_typo.json" -> "typo" (a leading number orders the list
// and is not part of the id).
std::string lesson_id(const std::string& file)
{
    std::string stem = std::filesystem::path(file).stem().string();
    const size_t underscore = stem.find('_');
    if (underscore != std::string::npos &&
        std::all_of(stem.begin(), stem.begin() + static_cast<long>(underscore), ::isdigit))
        stem = stem.substr(underscore + 1);
    return stem;
}

// A step's "stages" and "cells": what it highlights.
Status read_step_highlights(const json& js, const Context& sctx, LessonStep* step)
{
    if (const auto stages = js.find("stages"); stages != js.end())
    {
        if (!stages->is_array())
            return sctx.error("\"stages\" must be a list of stage names");
        for (const json& st : *stages)
        {
            Stage stage{};
            ATTNLAB_TRY(read_stage(st, sctx, &stage));
            step->stages.push_back(stage);
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
            ATTNLAB_TRY(read_stage(jc["stage"], sctx, &cell.stage));
            ATTNLAB_TRY(read_int(jc, "row", 0, sctx, &cell.row));
            ATTNLAB_TRY(read_int(jc, "col", 0, sctx, &cell.col));
            step->cells.push_back(cell);
        }
    }
    return Status::ok();
}

// Where a step looks: cross-attention or not, the layer, sentence and head, the view (and comparison), and
// the Model panel setting it points at.
Status read_step_focus(const json& js, const Context& sctx, LessonStep* step)
{
    ATTNLAB_TRY(sctx.boolean(js, "", "cross", &step->cross, Need::Optional));
    for (auto [key, field] :
         {std::pair{"layer", &step->layer}, {"sentence", &step->sentence}, {"head", &step->head}})
        ATTNLAB_TRY(read_int(js, key, 0, sctx, field));
    ATTNLAB_TRY(read_choice(js, "view",
                            {{"pipeline", LessonView::Pipeline},
                             {"heads", LessonView::Heads},
                             {"comparisons", LessonView::Comparisons}},
                            sctx, &step->view));
    if (js.contains("comparison"))
    {
        ATTNLAB_TRY(read_choice(js, "comparison",
                                {{"packed", ComparisonSection::Packed},
                                 {"two_step", ComparisonSection::TwoStep},
                                 {"single_head", ComparisonSection::SingleHead}},
                                sctx, &step->comparison));
        step->view = LessonView::Comparisons;
    }
    ATTNLAB_TRY(sctx.boolean(js, "", "row_sums", &step->row_sums, Need::Optional));
    ATTNLAB_TRY(read_string(js, "setting", false, sctx, &step->setting));
    if (!step->setting.empty() && setting_from_key(step->setting) == nullptr)
        return sctx.error("\"setting\" \"" + step->setting +
                          "\" is not a Model panel setting; valid: " + setting_keys());
    return Status::ok();
}

// One step: its text, its session (the lesson's with the step's fields patched in), what it highlights and
// where it looks, checked against the session's shapes, and its training run (the lesson's patched likewise).
Status read_step(const json& js, const json& base, const json& base_training, const Context& sctx,
                 LessonStep* out)
{
    ATTNLAB_TRY(check_object(js, "each step must be an object",
                             {"title", "text", "session", "stages", "cells", "cross", "layer", "sentence",
                              "head", "view", "comparison", "setting", "row_sums", "training"},
                             sctx));
    LessonStep step;
    ATTNLAB_TRY(read_string(js, "title", false, sctx, &step.title));
    ATTNLAB_TRY(read_string(js, "text", true, sctx, &step.text));
    json session;
    ATTNLAB_TRY(patched(base, js, "session", sctx, &session));
    session["format"] = kSessionFormat;
    session["version"] = kSessionVersion;
    ATTNLAB_TRY(session_from_json(session.dump(), sctx.source(), &step.session));
    ATTNLAB_TRY(read_step_highlights(js, sctx, &step));
    ATTNLAB_TRY(read_step_focus(js, sctx, &step));
    ATTNLAB_TRY(check_step_shapes(step, sctx));
    json training;
    ATTNLAB_TRY(patched(base_training, js, "training", sctx, &training));
    if (!training.is_null())
    {
        ATTNLAB_TRY(read_training(training, sctx, &step.training));
        step.view = LessonView::Training;
    }
    const bool shows_weights =
        step.view == LessonView::Pipeline &&
        std::find(step.stages.begin(), step.stages.end(), Stage::weights) != step.stages.end();
    if (step.row_sums && !shows_weights)
        return sctx.error(
            "\"row_sums\" needs \"weights\" among the step's \"stages\" (the sums are the weights' rows)");
    *out = std::move(step);
    return Status::ok();
}

} // namespace

Status parse_lesson(std::string_view text, const std::string& file, Lesson* out)
{
    const Context ctx(file);
    json root;
    ATTNLAB_TRY(ctx.parse(text, &root));
    if (!root.is_object())
        return ctx.error("expected a JSON object with \"format\": \"attnlab-lesson\"");
    ATTNLAB_TRY(ctx.format(root, {kLessonFormat}));
    int version = 0;
    ATTNLAB_TRY(ctx.version(root, kLessonVersion, &version));
    ATTNLAB_TRY(
        check_unknown(root, {"format", "version", "title", "summary", "session", "training", "steps"}, ctx));

    Lesson lesson;
    lesson.file = file;
    lesson.id = lesson_id(file);
    if (lesson.id.empty()) // "12_.json": no id to open it by (--lesson "" is no option)
        return ctx.error("the file name gives the lesson no id: name it like 05_my_lesson.json (the id is "
                         "what follows the number and the underscore)");
    ATTNLAB_TRY(read_string(root, "title", true, ctx, &lesson.title));
    ATTNLAB_TRY(read_string(root, "summary", false, ctx, &lesson.summary));
    const json base = root.value("session", json::object());
    if (!base.is_object())
        return ctx.error("\"session\" must be an object (the fields of a session file)");
    const json base_training = root.value("training", json());
    if (!base_training.is_null() && !base_training.is_object())
        return ctx.error("\"training\" must be an object (the run every step trains, patched by the steps)");
    const auto steps = root.find("steps");
    if (steps == root.end() || !steps->is_array() || steps->empty())
        return ctx.error("\"steps\" must be a non-empty list");
    if (steps->size() > static_cast<std::size_t>(kMaxStepsInLesson))
        return ctx.error("\"steps\" has " + std::to_string(steps->size()) + " steps; a lesson has at most " +
                         std::to_string(kMaxStepsInLesson) + ": split it into several lessons");
    std::size_t text_bytes = 0;
    for (size_t i = 0; i < steps->size(); ++i)
    {
        LessonStep step;
        ATTNLAB_TRY(read_step((*steps)[i], base, base_training,
                              Context(file + ", step " + std::to_string(i + 1)), &step));
        text_bytes += step.session.text.size() + step.session.target.size();
        if (text_bytes > kMaxLessonTextBytes)
            return ctx.error("its steps hold more than " + std::to_string(kMaxLessonTextBytes >> 20) +
                             " MiB of session text in all by step " + std::to_string(i + 1) +
                             " (each step has its own copy of the lesson's text): shorten the text or "
                             "split the lesson");
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
        // The built-in folder is found through the environment; a folder the user named is theirs to mend.
        const char* advice = " (set ATTNLAB_LESSONS to the lessons folder, or ATTNLAB_ASSETS to the data "
                             "folder that holds it)";
        if (dir.empty())
            library.errors.push_back("the built-in lessons were not found: there is no share/attnlab folder "
                                     "beside the program" +
                                     std::string(advice));
        else if (!path_present(dir))
            library.errors.push_back(path_for_message(dir) + ": lesson folder not found" +
                                     (dir == default_lessons_dir() ? advice
                                                                   : ": give the folder that holds "
                                                                     "the lesson files (*.json)"));
        else
        {
            // A file, a FIFO, a link that loops or leads nowhere: what it is, not "not found".
            (void)std::filesystem::status(dir, ec);
            library.errors.push_back(path_for_message(dir) + " is not a folder" +
                                     (ec ? " (" + ec.message() + ")" : std::string()) +
                                     ": give the folder that holds the lesson files (*.json)" +
                                     (dir == default_lessons_dir() ? advice : ""));
        }
        return library;
    }
    // Every entry named *.json is a lesson: one that cannot be read (a link loop, a dangling link, a FIFO,
    // a folder, a device) is listed with its reason by read_file below, never thrown, never skipped silently.
    std::vector<std::filesystem::path> files;
    std::filesystem::directory_iterator entries(dir, ec), end;
    for (; !ec && entries != end; entries.increment(ec))
        if (entries->path().extension() == ".json")
            files.push_back(entries->path());
    if (ec)
        library.errors.push_back(path_for_message(dir) + ": cannot list the lesson folder: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& path : files)
    {
        // Named by its path as the folder was given (a --dir of the user's or the built-in folder).
        const std::string name = path_for_message(path.string());
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
        std::string unusable;
        for (LessonStep& step : lesson.steps)
        {
            step.session.weights_path = absolute_weights_path(path.string(), step.session.weights_path);
            if (unusable.empty())
                unusable = weights_file_problem(step.session.weights_path);
        }
        if (!unusable.empty())
        {
            library.errors.push_back(name + ": " + unusable);
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
    return asset_path("lessons");
}

} // namespace attnlab
