#include "commandline.h"

#include "common/languages.h"
#include "common/loadchoices.h"
#include "common/textpos.h"
#include "mainwindow.h"
#include "pages/page.h"
#include "pages/scriptable.h"
#include "services/modelservice.h"

#include "ascviz/base/utf8.h"
#include "ascviz/eval/eval.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

#include <cstdio>
#include <type_traits>

namespace ascviz::ui {

ParseResult parseGuiCommandLine(const QStringList& args, GuiOptions* out, QString* message)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("AsC-Viz: syntax-grounded explanations of code LLMs."));
    const auto help = p.addHelpOption();
    const auto version = p.addVersionOption();
    const QCommandLineOption model(
        QStringLiteral("model"),
        QStringLiteral(
            "Model folder; ORG/NAME for a model in the local Hugging Face cache; 'default' for the bundled model."),
        QStringLiteral("DIR|ORG/NAME"), QStringLiteral("default"));
    const QCommandLineOption device(QStringLiteral("device"), choicesHelp<Device>(), QStringLiteral("DEVICE"),
                                    QStringLiteral("auto"));
    const QCommandLineOption dtype(QStringLiteral("dtype"), choicesHelp<Dtype>(), QStringLiteral("DTYPE"),
                                   QStringLiteral("auto"));
    const QCommandLineOption weights(
        QStringLiteral("weights"),
        choicesHelp<Weights>() +
            QStringLiteral(" checkpoint keeps a bfloat16/float16 checkpoint's weights in its "
                           "type (CPU); auto does so when a float32 copy would not fit in memory."),
        QStringLiteral("W"), QStringLiteral("auto"));
    const QCommandLineOption promptFile(QStringLiteral("prompt-file"),
                                        QStringLiteral("Put this file's text in the prompt editor."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption session(QStringLiteral("open-session"),
                                     QStringLiteral("Open an .ascviz session file (no model run needed)."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption generate(QStringLiteral("generate"),
                                      QStringLiteral("Generate a completion of the prompt (else it is scored)."));
    const QCommandLineOption greedy(QStringLiteral("greedy"), QStringLiteral("Greedy decoding (the default)."));
    const QCommandLineOption maxNew(QStringLiteral("max-new-tokens"),
                                    QStringLiteral("Tokens to generate (default 64)."), QStringLiteral("N"),
                                    QStringLiteral("64"));
    const QCommandLineOption temperature(QStringLiteral("temperature"), QStringLiteral("Sample with this temperature."),
                                         QStringLiteral("T"));
    const QCommandLineOption topP(QStringLiteral("top-p"), QStringLiteral("Nucleus sampling threshold."),
                                  QStringLiteral("P"));
    const QCommandLineOption topK(QStringLiteral("top-k"), QStringLiteral("Sample among the K most likely tokens."),
                                  QStringLiteral("K"));
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Sampling seed."), QStringLiteral("S"));
    const QCommandLineOption view(QStringLiteral("view"), QStringLiteral("sequence, partial or complete."),
                                  QStringLiteral("VIEW"));
    const QCommandLineOption aggregation(QStringLiteral("aggregation"), QStringLiteral("median, mean, max or min."),
                                         QStringLiteral("THETA"));
    const QCommandLineOption selectNode(QStringLiteral("select-node"),
                                        QStringLiteral("Select this AST node id after the result is shown."),
                                        QStringLiteral("ID"));
    const QCommandLineOption selectToken(QStringLiteral("select-token"),
                                         QStringLiteral("Select this token index after the result is shown."),
                                         QStringLiteral("I"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save a PNG of the window once the result is shown."),
                                        QStringLiteral("OUT.png"));
    const QCommandLineOption quit(QStringLiteral("quit"), QStringLiteral("Exit when done (after the screenshot)."));
    p.addOptions({model, device, dtype, weights, promptFile, session, generate, greedy, maxNew, temperature, topP, topK,
                  seed, view, aggregation, selectNode, selectToken, screenshot, quit});
    // Listed for --help only: main() runs these study modes before this parser (pages/study/studycommand.h).
    const QCommandLineOption runStudy(
        QStringLiteral("run-study"),
        QStringLiteral(
            "Participant mode: STUDY.json --participant ID [--responses FILE] [--windowed] (must come first)."),
        QStringLiteral("STUDY"));
    const QCommandLineOption renderTrial(
        QStringLiteral("render-study-trial"),
        QStringLiteral(
            "A trial as PNG: STUDY.json --participant ID --trial K --png OUT [--size WxH] (must come first)."),
        QStringLiteral("STUDY"));
    p.addOptions({runStudy, renderTrial});

    if (!p.parse(args)) {
        *message = p.errorText();
        return ParseResult::Error;
    }
    if (p.isSet(help)) {
        *message = p.helpText();
        return ParseResult::Help;
    }
    if (p.isSet(version)) {
        *message = QCoreApplication::applicationName() + QLatin1Char(' ') + QCoreApplication::applicationVersion();
        return ParseResult::Version;
    }
    if (!p.positionalArguments().isEmpty()) {
        *message = QStringLiteral("unexpected argument: %1").arg(p.positionalArguments().first());
        return ParseResult::Error;
    }

    GuiOptions o;
    o.model = p.value(model);
    if (!readLoadOption(p.value(device), QStringLiteral("--device"), &o.load.device, message) ||
        !readLoadOption(p.value(dtype), QStringLiteral("--dtype"), &o.load.dtype, message) ||
        !readLoadOption(p.value(weights), QStringLiteral("--weights"), &o.load.weights, message))
        return ParseResult::Error;
    o.promptFile = p.value(promptFile);
    o.session = p.value(session);
    o.generate = p.isSet(generate);
    o.screenshot = p.value(screenshot);
    o.quit = p.isSet(quit);

    // An option's number (int or double) within [lo, hi]; false with a message when it is not.
    auto numberOf = [&](const QCommandLineOption& opt, auto lo, auto hi, auto* v) {
        using T = std::remove_pointer_t<decltype(v)>;
        if (!p.isSet(opt))
            return true;
        bool ok = false;
        T x{};
        if constexpr (std::is_same_v<T, int>)
            x = p.value(opt).toInt(&ok);
        else
            x = p.value(opt).toDouble(&ok);
        if (!ok || x < lo || x > hi) {
            *message = QStringLiteral("--%1 must be %2 in [%3, %4]")
                           .arg(opt.names().first(),
                                std::is_same_v<T, int> ? QStringLiteral("an integer") : QStringLiteral("a number"))
                           .arg(lo)
                           .arg(hi);
            return false;
        }
        *v = x;
        return true;
    };
    auto intOf = [&](const QCommandLineOption& opt, int lo, int hi, int* v) { return numberOf(opt, lo, hi, v); };
    auto doubleOf = [&](const QCommandLineOption& opt, double lo, double hi, double* v) {
        return numberOf(opt, lo, hi, v);
    };
    int seedValue = 0;
    if (!intOf(maxNew, 1, 1 << 20, &o.generation.maxNewTokens) ||
        !doubleOf(temperature, 1e-3, 100.0, &o.generation.temperature) ||
        !doubleOf(topP, 1e-6, 1.0, &o.generation.topP) || !intOf(topK, 0, 1 << 30, &o.generation.topK) ||
        !intOf(seed, 0, std::numeric_limits<int>::max(), &seedValue) ||
        !intOf(selectNode, 0, std::numeric_limits<int>::max(), &o.selectNode) ||
        !intOf(selectToken, 0, std::numeric_limits<int>::max(), &o.selectToken))
        return ParseResult::Error;
    o.generation.seed = uint64_t(seedValue);
    const bool sampling = p.isSet(temperature) || p.isSet(topP) || p.isSet(topK) || p.isSet(seed);
    if (sampling && p.isSet(greedy)) {
        *message = QStringLiteral("--greedy cannot be combined with --temperature/--top-p/--top-k/--seed");
        return ParseResult::Error;
    }
    o.generation.greedy = !sampling;
    if (p.isSet(view)) {
        ResultView v;
        if (!parseResultView(p.value(view), &v)) {
            *message = QStringLiteral("--view must be sequence, partial or complete");
            return ParseResult::Error;
        }
        o.view = p.value(view);
    }
    if (p.isSet(aggregation)) {
        try {
            parseAggregation(toUtf8(p.value(aggregation)));
        } catch (const std::exception&) {
            *message = QStringLiteral("--aggregation must be median, mean, max or min");
            return ParseResult::Error;
        }
        o.aggregation = p.value(aggregation);
    }
    if (!o.promptFile.isEmpty() && !o.session.isEmpty()) {
        *message = QStringLiteral("--prompt-file and --open-session cannot be combined");
        return ParseResult::Error;
    }
    if (o.generate && o.promptFile.isEmpty()) {
        *message = QStringLiteral("--generate needs --prompt-file");
        return ParseResult::Error;
    }
    *out = o;
    return ParseResult::Ok;
}

AutoRun::AutoRun(MainWindow* window, GuiOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_opts(std::move(options))
{
}

void AutoRun::fail(const QString& message, bool fatal)
{
    if (m_done)
        return;
    std::fprintf(stderr, "ascviz: %s\n", message.toLocal8Bit().constData());
    if (m_opts.quit || fatal) {
        m_done = true;
        Q_EMIT finished(1);
    }
}

ScriptablePage* AutoRun::scriptable() const
{
    return m_window ? m_window->page<ScriptablePage>() : nullptr;
}

void AutoRun::start()
{
    MainWindow* w = m_window;
    ScriptablePage* page = scriptable();
    if (!page) {
        fail(QStringLiteral("no page runs the model on a prompt"));
        return;
    }
    ModelService* models = w->modelService();
    if (!m_opts.aggregation.isEmpty())
        page->setAggregation(parseAggregation(toUtf8(m_opts.aggregation)));
    page->setGenerationOptions(m_opts.generation);
    if (!m_opts.promptFile.isEmpty()) {
        try {
            m_prompt = toQString(readUtf8File(toUtf8(m_opts.promptFile)));
        } catch (const std::exception& e) {
            fail(toQString(e.what()), true); // the run's input is unreadable (or not UTF-8): nothing to show
            return;
        }
        if (const QString lang = languageForFile(m_opts.promptFile); !lang.isEmpty())
            page->setLanguage(lang); // the file's extension chooses the language
        if (!page->setPrompt(m_prompt)) {
            fail(tr("%1 is over the %2 bytes the editor holds").arg(m_opts.promptFile).arg(page->maxPromptBytes()));
            return;
        }
    }
    page->watchResults(
        this, [this] { onResult(); }, [this](const QString& m) { fail(m); });
    connect(models, &ModelService::loadFailed, this, [this](const QString& dir, const QString& m) {
        fail(QStringLiteral("cannot load the model from %1: %2").arg(dir, m));
    });
    connect(models, &ModelService::modelLoaded, this, &AutoRun::onModelLoaded);

    if (!m_opts.session.isEmpty()) {
        QString error;
        Page* sessions = dynamic_cast<Page*>(page); // the page that shows a result keeps it in sessions
        if (!sessions || !sessions->restoreSession(m_opts.session, &error))
            fail(error.isEmpty() ? QStringLiteral("no page opens sessions") : error);
        return;
    }
    if (m_prompt.isEmpty() && (m_opts.quit || !m_opts.screenshot.isEmpty())) {
        // Nothing to run: finish once the model is in.
        connect(models, &ModelService::modelLoaded, this, &AutoRun::finish);
    }
}

void AutoRun::onModelLoaded()
{
    if (m_started || m_prompt.isEmpty())
        return;
    m_started = true;
    if (ScriptablePage* page = scriptable())
        m_opts.generate ? page->generate() : page->score();
}

void AutoRun::onResult()
{
    if (m_done)
        return;
    ScriptablePage* page = scriptable();
    if (!page)
        return;
    if (!m_opts.view.isEmpty()) {
        ResultView v;
        if (parseResultView(m_opts.view, &v))
            page->showView(v);
    }
    if (m_opts.selectNode >= 0)
        page->selectNode(m_opts.selectNode);
    else if (m_opts.selectToken >= 0)
        page->selectToken(m_opts.selectToken);
    // Let the views lay out and paint before grabbing.
    QTimer::singleShot(400, this, &AutoRun::finish);
}

void AutoRun::finish()
{
    if (m_done || !m_window)
        return;
    if (!m_opts.screenshot.isEmpty()) {
        const QPixmap shot = m_window->grab();
        if (shot.isNull() || !shot.save(m_opts.screenshot, "PNG")) {
            fail(QStringLiteral("cannot write the screenshot %1").arg(m_opts.screenshot));
            return;
        }
        std::fprintf(stderr, "ascviz: saved %s\n", m_opts.screenshot.toLocal8Bit().constData());
    }
    if (m_opts.quit) {
        m_done = true;
        Q_EMIT finished(0);
    }
}

} // namespace ascviz::ui
