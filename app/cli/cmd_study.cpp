// study (docs/cli.md "Additions", docs/study.md): init (design + evaluations with the model), render (what a
// participant sees, drawn by the GUI executable: the CLI stays Qt-free), report and export (no model).
#include "answers.h"
#include "commands.h"
#include "common.h"
#include "output.h"

#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/base/utf8.h"
#include "ascviz/galeras/testbed.h"
#include "ascviz/results/corpus.h"
#include "ascviz/study/report.h"
#include "ascviz/study/responses.h"
#include "ascviz/study/study.h"
#include "ascviz/syntax/language.h"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace ascviz::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');)
        if (!x.empty())
            out.push_back(x);
    return out;
}

int studyInit(Args& args)
{
    const std::string corpusArg = args.require("--corpus");
    const int samples = args.intValue("--samples", 0);
    const int participants = args.intValue("--participants", 0);
    const fs::path out = args.require("--out");
    StudyDesign d;
    d.conditions = splitList(args.valueOr("--conditions", "C,S1,S2,S3"));
    d.seed = args.uint64Value("--seed", 0);
    d.id = args.valueOr("--id", "");
    d.title = args.valueOr("--title", "");
    const int points = args.intValue("--points", 5);
    const auto labels = args.value("--labels");
    d.aggregation = aggregationOption(args);
    const std::string designArg = args.valueOr("--design", "within");
    const auto backgroundArg = args.value("--background");
    const bool complete = args.flag("--complete");
    const int maxNewTokens = args.intValue("--max-new-tokens", 64);
    const bool stopAtFunctionEnd = args.flag("--stop-at-function-end");
    const std::string language = languageOptionOrEmpty(args);
    const std::string modelArg = args.valueOr("--model", "default");
    LoadOptions lo = loadOptions(args);
    args.finish();
    if (samples < 1)
        throw UsageError("--samples N (N >= 1) is required");
    if (participants < 1)
        throw UsageError("--participants P (P >= 1) is required");
    if (points != 4 && points != 5)
        throw UsageError("--points must be 4 or 5");
    d.questions = defaultStudyQuestions(points);
    if (labels) {
        const auto l = splitList(*labels);
        if (int(l.size()) != points)
            throw UsageError("--labels needs " + std::to_string(points) + " comma-separated labels");
        for (auto& q : d.questions)
            q.labels = l;
    }
    d.participants = participants;
    try {
        d.design = parseStudyDesign(designArg);
    } catch (const InputError&) {
        throw UsageError("--design must be within or between");
    }
    if (maxNewTokens < 1)
        throw UsageError("--max-new-tokens must be >= 1");
    if (stopAtFunctionEnd && !complete)
        throw UsageError("--stop-at-function-end cuts the model's completions: give it with --complete");
    // The background section: the paper's questions, those of a JSON file (an array of {"id", "text", "kind":
    // "choice"|"text", "options"}), or none.
    if (!backgroundArg)
        d.background = defaultBackgroundQuestions();
    else if (*backgroundArg != "none")
        d.background = [&] {
            const std::string text = readUtf8File(*backgroundArg);
            try {
                return backgroundFromJson(nlohmann::json::parse(text));
            } catch (const nlohmann::json::parse_error& e) {
                throw InputError("--background " + *backgroundArg + ": invalid JSON (" + e.what() + ")");
            } catch (const InputError& e) {
                throw InputError("--background " + *backgroundArg + ": " + e.what());
            }
        }();
    // Cheap checks before the model: the output, the design's arithmetic, the corpus.
    std::error_code ec;
    if (fs::exists(out, ec))
        throw InputError("the study file " + out.string() + " exists already; not overwritten (choose another --out)");
    if (d.design == StudyDesignKind::Between)
        assignTrialsBetween(samples, d.conditions, participants, d.seed);
    else
        assignTrials(samples, d.conditions, participants, d.seed);

    CorpusReadOptions ro;
    ro.language = language;
    const auto& reg = LanguageRegistry::instance();
    const LanguageInfo& sampleOf = language.empty() ? reg.defaultLanguage() : reg.get(language);
    const fs::path corpusPath = corpusArg != "default"          ? fs::path(corpusArg)
                                : sampleOf.sampleCorpus.empty() ? sampleCorpus()
                                                                : sampleOf.sampleCorpus;
    const Corpus corpus = readCorpus(corpusPath, ro);
    for (const auto& i : corpus.issues)
        std::cerr << "corpus: " << i.location << ": " << i.message << '\n';
    if (std::size_t(samples) > corpus.entries.size())
        throw InputError("the corpus " + corpusPath.string() + " has " + std::to_string(corpus.entries.size()) +
                         " usable entries, fewer than --samples " + std::to_string(samples));
    const auto picked = drawSamples(corpus.entries.size(), samples, d.seed);

    auto model = LanguageModel::load(resolveModelDir(modelArg), lo);
    d.model = model->info().name;
    d.source = corpus.source.string();
    std::vector<StudySample> evaluated;
    for (std::size_t i = 0; i < picked.size(); ++i) {
        const CorpusEntry& e = corpus.entries[picked[i]];
        std::cerr << "study: evaluating " << (i + 1) << "/" << picked.size() << " (" << e.id << ")\n";
        ScoredText s;
        std::optional<std::size_t> resplitAt; // a completion cut and scored again: split there when evaluated
        if (complete) {
            // The model's completion of the prompt (method.md §9), generated once here and stored: greedy,
            // at most --max-new-tokens tokens; the prompt is teacher-forced, the completion flagged generated.
            if (!e.prompt)
                throw InputError("--complete: corpus entry " + e.id + " (" + e.location +
                                 ") has no prompt to complete (a \"prompt\" field)");
            // The prompt's trailing line breaks are left for the model to predict: after a prompt ending in
            // one, a code model tends to end the text at once (EOS), which would leave no completion.
            std::string prompt = *e.prompt;
            while (prompt.size() > 1 && (prompt.back() == '\n' || prompt.back() == '\r'))
                prompt.pop_back();
            GenerationOptions g;
            g.maxNewTokens = maxNewTokens;
            g.greedy = true;
            // --stop-at-function-end, as galeras run: stop once the text goes past the function (checked at
            // each line break) and cut it at the function's end (galeras/testbed.h functionEnd)
            CancelFlag stopNow{false};
            std::string sofar = prompt;
            const auto onToken = [&](const StreamedToken& tok) {
                sofar += tok.piece;
                if (stopAtFunctionEnd && tok.piece.find('\n') != std::string::npos && functionEnd(sofar, e.language))
                    stopNow = true;
            };
            s = model->generate(prompt, g, onToken, &stopNow);
            if (stopAtFunctionEnd)
                if (const auto end = functionEnd(s.text, e.language); end && *end > s.promptBytes) {
                    // the completion cut at the function's end, scored again (teacher-forced) so that the
                    // stored tokens and NtP are those of the text shown; its tokens flagged generated
                    resplitAt = s.promptBytes;
                    s = model->score(s.text.substr(0, *end));
                }
            if (resplitAt.value_or(s.promptBytes) == s.text.size())
                std::cerr << "study: note: the model ended " << e.id << " at once (EOS): no completion\n";
        } else {
            // the corpus's code is human-written: scored as it is, no token flagged generated (issue 44: a
            // prompt field no longer marks the rest of the code as the model's completion)
            s = model->score(e.code);
        }
        evaluated.push_back(makeStudySample(e.id, e.language, std::move(s), d.aggregation, resplitAt));
    }
    const Study study = makeStudy(d, std::move(evaluated));
    writeStudyFile(out, study);
    std::cerr << "study: wrote " << out.string() << " (study '" << study.id << "', " << study.samples.size()
              << " samples, " << study.participants.size() << " participants)\n";
    if (d.design == StudyDesignKind::Between) {
        std::map<std::string, int> groups;
        for (const auto& p : study.participants)
            ++groups[p.trials.front().condition];
        std::cerr << "study: between subjects, groups:";
        for (const auto& c : d.conditions)
            std::cerr << ' ' << c << ' ' << groups[c];
        std::cerr << '\n';
    }
    if (const std::string note = studyBalanceNote(d); !note.empty())
        std::cerr << "study: note: " << note << '\n';
    writeJson(assignmentJson(study), std::nullopt);
    return 0;
}

// The GUI executable next to this one (or $ASCVIZ_GUI) draws the trial: the CLI links no Qt.
fs::path guiExecutable()
{
    if (const char* env = std::getenv("ASCVIZ_GUI"); env && *env)
        return env;
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        throw InputError("cannot find the ascviz executable (set ASCVIZ_GUI)");
    buf[n] = '\0';
    return fs::path(buf).parent_path() / "ascviz";
}

int studyRender(Args& args)
{
    const std::string study = args.require("--study");
    const std::string participant = args.require("--participant");
    const int trial = args.intValue("--trial", -1);
    const std::string png = args.require("--png");
    const std::string size = args.valueOr("--size", "1280x800");
    args.finish();
    if (trial < 0)
        throw UsageError("--trial K (0-based) is required");
    // Check the input here, so that errors read like every other command's.
    const Study s = readStudyFile(study);
    const auto* p = s.participant(participant);
    if (!p)
        throw InputError("study '" + s.id + "' has no participant '" + participant + "'");
    if (trial >= int(p->trials.size()))
        throw InputError("participant " + participant + " has " + std::to_string(p->trials.size()) + " trials (0.." +
                         std::to_string(p->trials.size() - 1) + "); no trial " + std::to_string(trial));
    const fs::path gui = guiExecutable();
    if (access(gui.c_str(), X_OK) != 0)
        throw InputError("study render needs the GUI executable " + gui.string() +
                         " (built with ASCVIZ_BUILD_GUI=ON; or set ASCVIZ_GUI)");
    const std::string trialText = std::to_string(trial);
    std::vector<std::string> argv = {gui.string(), "--render-study-trial",
                                     study,        "--participant",
                                     participant,  "--trial",
                                     trialText,    "--png",
                                     png,          "--size",
                                     size};
    const pid_t pid = fork();
    if (pid < 0)
        throw InputError("cannot start " + gui.string());
    if (pid == 0) {
        if (!std::getenv("QT_QPA_PLATFORM"))
            setenv("QT_QPA_PLATFORM", "offscreen", 1);
        std::vector<char*> cargv;
        for (auto& a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execv(gui.c_str(), cargv.data());
        std::perror("exec ascviz");
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw InputError("rendering the trial failed (" + gui.string() + " exited with " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
    std::cerr << "study: wrote " << png << '\n';
    return 0;
}

int studyReport(Args& args)
{
    const fs::path responses = args.require("--responses");
    const auto studyFile = args.value("--study");
    const bool asJson = args.flag("--json");
    const auto csvDir = args.value("--csv");
    const auto out = args.value("--out");
    args.finish();
    if (asJson && csvDir)
        throw UsageError("--json and --csv are exclusive");
    const Answers a = readAnswers(responses, studyFile);
    const StudyReport r = computeStudyReport(a.conditions, a.questions, a.rows);
    const auto breakdown = a.backgroundAnswers.empty() ? std::vector<BackgroundBreakdown>{}
                                                       : backgroundBreakdown(a.conditions, a.questions, a.background,
                                                                             a.rows, a.backgroundAnswers);
    if (csvDir) {
        std::cerr << "study: wrote " << writeStudyReportCsv(r, *csvDir).string() << '\n';
        return 0;
    }
    if (asJson) {
        auto j = studyReportJson(r);
        if (!breakdown.empty())
            j["by_background"] = backgroundBreakdownJson(breakdown);
        writeJson(j, out);
        return 0;
    }
    std::ostringstream t;
    t << a.rows.size() << " answers\n";
    for (const auto& q : r.questions) {
        t << "\n" << q.id << " (" << q.points() << "-point scale; agree = the top " << (q.points() / 2) << ")\n";
        for (const auto& c : r.conditions) {
            const QuestionReport& qr = r.at(c, q.id);
            char buf[128];
            std::snprintf(buf, sizeof buf, "  %-3s %-24s n=%4d  agree %6.1f%%  ", c.c_str(),
                          conditionDescription(c).c_str(), qr.n, qr.agreePct);
            t << buf << "[";
            for (std::size_t i = 0; i < qr.distribution.size(); ++i)
                t << (i ? " " : "") << qr.distribution[i];
            t << "]\n";
        }
    }
    for (const auto& b : breakdown) {
        t << "\nby background question '" << b.question << "' (% agreement per condition)\n";
        for (const auto& g : b.groups) {
            t << "  " << g.answer << " (" << g.participants << " participants):";
            for (const auto& q : r.questions)
                for (const auto& c : r.conditions) {
                    char buf[96];
                    std::snprintf(buf, sizeof buf, " %s/%s %.0f%% (n=%d)", c.c_str(), q.id.c_str(),
                                  g.report.at(c, q.id).agreePct, g.report.at(c, q.id).n);
                    t << buf;
                }
            t << '\n';
        }
    }
    writeText(t.str(), out);
    return 0;
}

int studyExport(Args& args)
{
    const fs::path responses = args.require("--responses");
    const fs::path csv = args.require("--csv");
    args.finish();
    if (!isSqliteFile(responses))
        throw InputError(responses.string() + " is not an AsC-Viz responses file (not SQLite)");
    const auto db = ResponsesDb::openExisting(responses);
    std::error_code ec;
    if (fs::equivalent(csv, responses, ec))
        throw InputError("--csv names the responses file itself; not overwritten");
    const auto rows = db.rows();
    writeResponsesCsv(csv, rows);
    std::cerr << "study: wrote " << rows.size() << " answers to " << csv.string() << '\n';
    return 0;
}

} // namespace

int cmdStudy(Args& args)
{
    const auto sub = args.subcommand();
    if (!sub)
        throw UsageError("study needs a subcommand: init, render, report or export");
    if (*sub == "init")
        return studyInit(args);
    if (*sub == "render")
        return studyRender(args);
    if (*sub == "report")
        return studyReport(args);
    if (*sub == "export")
        return studyExport(args);
    throw UsageError("unknown study subcommand '" + *sub + "' (init, render, report, export)");
}

} // namespace ascviz::cli
