// User studies of the explanations (method.md §9; docs/study.md): the design (samples, conditions,
// questions with their Likert scales, participants), the counterbalanced assignment of trials, and the
// study file ("format": "ascviz-study", "version": 1). The samples' evaluations (tokens, NtP, AST values)
// are stored in the study file when it is created, so running a study needs no model and every
// participant sees the same numbers. Plain C++, no Qt.
#pragma once
#include "ascviz/eval/eval.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ascviz {

constexpr int kStudyVersion = 1;

// The four conditions of the paper: C = code only, S1 = sequence view with NtP, S2 = AST partial,
// S3 = AST complete.
const std::vector<std::string>& studyConditionNames(); // {"C", "S1", "S2", "S3"}
bool isStudyCondition(const std::string& name);
std::string conditionDescription(const std::string& name); // "code only", "sequence view with NtP", ...

struct StudyQuestion {
    std::string id;                  // "useful", "readable", "complex" (the key in reports and CSV)
    std::string text;                // what the participant reads
    std::vector<std::string> labels; // one per scale point, lowest first; labels.size() = 4 or 5
    int points() const { return int(labels.size()); }
};
// The default labels of a 4- or 5-point agreement scale.
std::vector<std::string> defaultLikertLabels(int points);
// The paper's three questions on a `points`-point scale.
std::vector<StudyQuestion> defaultStudyQuestions(int points = 5);
// What the participant reads for question `q` under `condition`. C shows no visualization (the paper's
// Table III: "C Control: Prompt, predicted tokens"), so a text about "The visualization" is asked about
// "The code" there — "The code (prompt and predicted tokens)" when the sample has a completion; other
// conditions and other texts are unchanged.
std::string questionTextFor(const StudyQuestion& q, const std::string& condition, bool hasCompletion);

// The study's design (method.md §9): Within = every participant sees every condition (the Latin square of
// assignTrials); Between = each participant sees one condition for all samples, the groups balanced
// (assignTrialsBetween). Written to the study file as "design" when Between (absent: Within).
enum class StudyDesignKind { Within, Between };
StudyDesignKind parseStudyDesign(const std::string& s); // "within" | "between"; InputError otherwise
std::string toString(StudyDesignKind d);

// A question of the survey's background section (method.md §9), asked once per participant before the
// trials. Data in the study file ("background"), editable there after creation (it is not part of the
// fingerprint; answers are keyed by the question's id). kind "choice": one of `options` (a Likert scale
// is a choice); kind "text": free text.
struct BackgroundQuestion {
    std::string id;
    std::string text;
    std::string kind = "choice";
    std::vector<std::string> options; // choice: 2 or more, distinct
};
// The paper's background section: Python proficiency, familiarity with LLMs for code, knowledge of ASTs
// (5-point scales), and the problems faced with LLMs (free text).
std::vector<BackgroundQuestion> defaultBackgroundQuestions();
// Checks ids (non-empty, distinct), kinds and options; InputError naming the question.
void checkBackgroundQuestions(const std::vector<BackgroundQuestion>& questions);
nlohmann::json backgroundToJson(const std::vector<BackgroundQuestion>& questions);
std::vector<BackgroundQuestion> backgroundFromJson(const nlohmann::json& j); // InputError for bad input

struct StudySample {
    std::string id;                         // the corpus entry's id
    std::string language;                   // a language of the registry
    std::shared_ptr<const EvalResult> eval; // the stored evaluation (the text is eval->scored.text)
};

struct StudyTrial {
    int sample = 0; // index into Study::samples
    std::string condition;
};

struct StudyParticipant {
    std::string id;                 // "P01", ...
    std::vector<StudyTrial> trials; // in presentation order
};

struct Study {
    std::string id;      // a name; identifies the study in its responses files
    std::string title;   // for the researcher (never shown to participants)
    std::string created; // ISO UTC time
    std::string model;   // the model that computed the evaluations (never shown to participants)
    std::string source;  // where the samples came from (corpus path, "interactive", ...)
    uint64_t seed = 0;
    Aggregation aggregation = Aggregation::Median;
    std::vector<std::string> conditions;
    std::vector<StudyQuestion> questions;
    std::vector<StudySample> samples;
    std::vector<StudyParticipant> participants;
    StudyDesignKind design = StudyDesignKind::Within;
    std::vector<BackgroundQuestion> background; // empty: no background section (files before it existed)
    std::string exitKey = "Ctrl+Shift+F12";     // ends participant mode (a Qt key sequence)
    bool allowComments = true;

    // FNV-1a 64 (hex) over the design: samples (id, text, tokens, NtP), conditions, questions, scales and
    // the participants' trials. A responses file records it; another study's file is refused.
    std::string fingerprint() const;
    const StudyParticipant* participant(const std::string& id) const; // nullptr when absent
    const StudyQuestion* question(const std::string& id) const;
};

// The counterbalanced assignment (docs/study.md): the samples are put in a seeded order (Fisher-Yates on
// mt19937_64(seed)); participant p (0-based) shows the sample at position i under condition
// (i + p) mod k, so each participant sees every condition samples/k times and, in every group of k
// consecutive participants, each sample appears once under every condition (a Latin square). Each
// participant's trials are then shuffled with mt19937_64(seed + 1 + p). Requires samples to be a positive
// multiple of k (InputError otherwise) and at least one participant. Participant ids are P01, P02, ...
std::vector<StudyParticipant> assignTrials(int samples, const std::vector<std::string>& conditions, int participants,
                                           uint64_t seed);

// Between subjects: participant p is in group perm_b[p mod k] (b = p / k), perm_b a seeded permutation of
// the conditions (mt19937_64(seed + b)), so group sizes differ by at most one and every k consecutive
// participants cover every condition once; each participant sees every sample under their group's
// condition, in a seeded order (mt19937_64(seed + 1 + p)). Any number of samples >= 1.
std::vector<StudyParticipant> assignTrialsBetween(int samples, const std::vector<std::string>& conditions,
                                                  int participants, uint64_t seed);

struct StudyDesign {
    std::string id, title, model, source;
    StudyDesignKind design = StudyDesignKind::Within;
    std::vector<BackgroundQuestion> background; // none unless asked (study init: the paper's by default)
    uint64_t seed = 0;
    Aggregation aggregation = Aggregation::Median;
    std::vector<std::string> conditions = studyConditionNames();
    std::vector<StudyQuestion> questions = defaultStudyQuestions();
    int participants = 4;
};
// "" when the design's assignment is balanced; else one sentence saying how it is not, for the CLI's note and the
// GUI's warning (issue 54: 2 participants over 4 conditions gave no warning in the GUI). Within: fewer participants
// than conditions (a sample is seen under only some of them) or not a multiple of them (the last group is
// incomplete); between: fewer participants than conditions (a condition without a group) or groups of unequal size.
std::string studyBalanceNote(const StudyDesign& design);

// Checks the design (conditions known and distinct, questions with 4 or 5 labels and distinct ids, samples
// a multiple of the conditions) and assigns the trials. Throws InputError naming what is wrong.
Study makeStudy(const StudyDesign& design, std::vector<StudySample> samples);

// A sample from a scored text: evaluates it (categories of its language). The tokens flagged generated
// (ScoredToken::generated) are what the study calls the model's completion: only text the model generated
// may be flagged (study init without --complete flags nothing: a corpus's code is human-written). `promptBytes`,
// when given, splits the text there first (a completion scored again, teacher-forced, after generation).
StudySample makeStudySample(const std::string& id, const std::string& language, ScoredText scored, Aggregation a,
                            std::optional<std::size_t> promptBytes = std::nullopt);

// The model's completion in a sample's text as the study file records it: from the first token flagged
// generated (or the prompt's end, when that token begins inside the prompt) to the end of the last one (byte
// offsets); nullopt when no stored token is flagged generated — then the code is human-written and is never
// presented as the model's, whatever its prompt length.
std::optional<std::pair<std::size_t, std::size_t>> generatedSpan(const StudySample& sample);

// Indices of `n` of `available` entries drawn reproducibly (Fisher-Yates on mt19937_64(seed)), in corpus
// order. Throws InputError when n is not in 1..available.
std::vector<std::size_t> drawSamples(std::size_t available, int n, uint64_t seed);
// A sample's prompt/completion split (what a participant sees as the completion): base/scored.h's
// splitAtPromptText.

nlohmann::json studyToJson(const Study& s);
// Throws InputError: not a study file, a newer version (naming both versions), a missing field, duplicate
// participant ids, a trial naming a missing sample or an unknown condition, a stored evaluation that does
// not match the text.
Study studyFromJson(const nlohmann::json& j);
// The assignment JSON of `study init` (docs/cli.md): {"study", "conditions", "samples", "participants"}.
nlohmann::json assignmentJson(const Study& s);

// Writes the study file; refuses (InputError) to overwrite an existing file unless `overwrite`.
void writeStudyFile(const std::filesystem::path& path, const Study& s, bool overwrite = false);
Study readStudyFile(const std::filesystem::path& path);
// readStudyFile of a file's text (`file` names it in messages): InputError for anything but a study file.
Study studyFromText(std::string_view text, const std::string& file);

} // namespace ascviz
