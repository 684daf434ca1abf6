// Lessons: hand-written JSON files under assets/lessons/, each a list of steps over real engine sessions.
#pragma once

#include "core/session.h"
#include "core/status.h"
#include "core/trace.h"
#include "core/train/run_spec.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab
{

inline constexpr const char* kLessonFormat = "attnlab-lesson";
inline constexpr int kLessonVersion = 1;
// The most steps a lesson may have (a lecture's worth many times over); --step takes 1 to this.
inline constexpr int kMaxStepsInLesson = 1000;
// The most session text (sentences and target) a lesson's steps may hold in all: each step has its own copy
// of the lesson's session, so a large text times many steps would take gigabytes.
inline constexpr std::size_t kMaxLessonTextBytes = std::size_t{16} << 20;

// A cell a step points at, e.g. the weight of query 2 on key 0.
struct LessonCell
{
    Stage stage = Stage::weights;
    int row = 0;
    int col = 0;
};

// Which view a step wants in front.
enum class LessonView
{
    Pipeline,    // the stages, in order
    Heads,       // the h attention maps side by side
    Comparisons, // packed vs per-head, two-step vs collapsed, single vs multi-head
    Training,    // a model the lesson trains, in the Training panel
};

// A step in the Training panel: the run (with runs trained before it, whose curves stay beside its own), the
// step of the timeline shown, the maps and the head score in front, and the probe. A run is its task's preset
// with the fields the file gives, trained for its "steps" from its "seed": the same run on every machine; a
// run to compare with is the step's run with its own fields changed.
struct LessonTraining
{
    bool on = false;
    train::RunSpec run;
    std::vector<train::RunSpec> compare; // trained first, in order; their curves are overlaid
    int show_step = -1;                  // the timeline at this step; -1: the run's last
    int map_kind = 0; // 0 attention, 1 attention and ∂L/∂A_h, 2 output stages, 3 every stage
    int score_kind =
        0; // a train::HeadScoreKind: 0 previous-token, 1 induction, 2 diagonal, 3 anti-diagonal, 4 word-start
    std::string probe; // the probe's tokens (text: its characters); "": the task's default
    // The maps of compare[compare_maps] beside the run's own (its final weights on the same probe); -1: none.
    int compare_maps = -1;
    // A built-in trained model (core/io/builtin_models.h) the step opens instead of training run; "": none.
    std::string model;
};

// Which part of the comparisons view a step is about (the view shows only that part while the step is on).
enum class ComparisonSection
{
    All,        // every comparison
    Packed,     // packed X W^Q and its h column blocks beside the per-head Q_h
    TwoStep,    // (X W^Q) W_h^Q beside X (W^Q W_h^Q)
    SingleHead, // one T×T map from the packed matrices beside the h maps, and their outputs
};

struct LessonStep
{
    std::string title;             // short, shown as the caption's heading
    std::string text;              // one or two paragraphs, plain text with UTF-8 maths
    Session session;               // the lesson's session with this step's changes applied
    std::vector<Stage> stages;     // stages to highlight (and scroll to); empty: none
    std::vector<LessonCell> cells; // cells to highlight within those stages
    bool cross = false;            // the stages are those of the cross-attention block
    int layer = 0, sentence = 0, head = 0;
    LessonView view = LessonView::Pipeline;
    ComparisonSection comparison = ComparisonSection::All; // with view = comparisons
    // A Model panel setting the text asks the student to change (a key of the settings table,
    // core/settings.h; "scale": the √d_k checkbox): the panel is opened, scrolled to it and the setting
    // framed. "" : none.
    std::string setting;
    // The softmax's axis is the subject: the step's attention weights show each row's sum in a Σ column
    // beside the map, and its maps name their axes (query, key).
    bool row_sums = false;
    // A step about a trained model (view = Training): what to train and show.
    LessonTraining training;
};

struct Lesson
{
    std::string id; // from the file name: "02_typo.json" -> "typo" (the number only orders the list)
    std::string title;
    std::string summary; // one line for the list
    std::string file;    // where it came from, for messages
    std::vector<LessonStep> steps;
};

// Parses one lesson (format described in assets/lessons/README.md). Every step's session is validated
// with the engine's rules, and every highlighted stage, cell, layer and head must exist in it; the message
// names the file, the step and the field. On error *out is unchanged.
Status parse_lesson(std::string_view text, const std::string& file, Lesson* out);

struct LessonLibrary
{
    std::vector<Lesson> lessons;     // sorted by file name
    std::vector<std::string> errors; // one message per file that failed; the others still load
};

// Loads every *.json file in dir. A missing folder is one error, not a crash.
LessonLibrary load_lessons(const std::string& dir);

// The lesson with this id, or nullptr.
const Lesson* find_lesson(const LessonLibrary& library, const std::string& id);

// The folder with the built-in lessons: $ATTNLAB_LESSONS if set, else the one next to the sources.
std::string default_lessons_dir();

} // namespace attnlab
