#include "pages/interactive/interactivepage.h"
#include "views/prompteditor.h"

#include "common/figureoptions.h"
#include "common/languages.h"
#include "common/textpos.h"
#include "pages/interactive/interactiveengine.h"
#include "services/modelservice.h"
#include "services/resultstore.h"
#include "views/astview.h"
#include "views/detailspanel.h"
#include "views/legendwidget.h"
#include "views/sequenceview.h"
#include "views/syntaxhighlighter.h"

#include "ascviz/base/version.h"
#include "ascviz/eval/evaljson.h"
#include "ascviz/figure/viewrender.h"
#include "ascviz/figure/views.h"
#include "ascviz/render/svg.h"
#include "ascviz/results/session.h"
#include "ascviz/share/share.h"
#include "ascviz/syntax/language.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/sha256.h"
#include "ascviz/base/utf8.h"
#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <fstream>

namespace ascviz::ui {

namespace {

bool writeBytes(const QString& path, const std::string& bytes, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error)
            *error = QObject::tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size())) {
        if (error)
            *error = QObject::tr("failed writing %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace

void InteractivePage::setCategoryLabel()
{
    const QString f = m_engine->categoryFile();
    const QString lang = m_engine->language();
    const LanguageInfo* info = findLanguage(lang);
    const QString name = info ? toQString(info->name) : lang;
    QString label = f.isEmpty() ? tr("bundled (%1)").arg(lang) : QFileInfo(f).fileName();
    QString tip = f.isEmpty() ? tr("The bundled %1 category table").arg(name) : f;
    if (m_engine->categoryFromSession()) {
        label = tr("%1, the session's copy").arg(label);
        tip += QLatin1Char('\n') + tr("The copy the session file keeps (the file changed since it was saved).");
    }
    m_categoryLabel->setText(label);
    m_categoryLabel->setToolTip(tip);
}

void InteractivePage::chooseCategoryFile()
{
    const QString f =
        QFileDialog::getOpenFileName(this, tr("Category file"), QString(), tr("JSON (*.json);;All files (*)"));
    if (f.isEmpty())
        return;
    QString error;
    if (!m_engine->setCategoryFile(f, &error))
        Q_EMIT errorOccurred(tr("Could not use the category file: %1").arg(error));
    setCategoryLabel();
}

void InteractivePage::resetCategoryFile()
{
    QString error;
    if (!m_engine->setCategoryFile(QString(), &error))
        Q_EMIT errorOccurred(error);
    setCategoryLabel();
}

bool InteractivePage::exportSvg(const QString& path, View v, QString* error) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    try {
        // The one drawer of `render` and Python (figure/viewrender.h), without figure options: the screen view.
        ascviz::ViewRequest request;
        request.view = v == View::Sequence  ? ascviz::ViewKind::Sequence
                       : v == View::Partial ? ascviz::ViewKind::Partial
                                            : ascviz::ViewKind::Complete;
        if (v != View::Sequence) // as seen: the view's folds, code text and subtree
            request.options.layout =
                astView(v == View::Partial ? ascviz::AstView::Partial : ascviz::AstView::Complete)->shownLayout();
        return writeBytes(path, ascviz::drawView(*shown()->eval, request).bytes, error);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

bool InteractivePage::exportFigure(const QString& path, View v, const FigureExportOptions& options, bool pdf,
                                   QString* error, int subtree) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    try {
        ViewFigureOptions viewOptions;
        if (v != View::Sequence) { // as seen: the view's folds and subtree, no other collapsing, no turning
            viewOptions.layout =
                astView(v == View::Partial ? ascviz::AstView::Partial : ascviz::AstView::Complete)->shownLayout();
            if (subtree >= 0)
                viewOptions.layout.subtree = subtree;
            viewOptions.autoCollapse = false;
            viewOptions.autoOrientation = false;
        }
        const ViewFigure vf =
            v == View::Sequence
                ? sequenceFigure(*shown()->eval, options.style, viewOptions)
                : astFigure(*shown()->eval, v == View::Partial ? ascviz::AstView::Partial : ascviz::AstView::Complete,
                            options.style, viewOptions);
        writeFigure(vf.figure, toUtf8(path), pdf);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

void InteractivePage::exportSubtree(View v, int node)
{
    if (!shown() || v == View::Sequence)
        return;
    const auto& nodes = shown()->eval->tree.nodes();
    const QString type = node >= 0 && std::size_t(node) < nodes.size() ? toQString(nodes[std::size_t(node)].type)
                                                                       : QStringLiteral("node");
    QString selected;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export subtree"), type + QStringLiteral(".svg"),
                                                      tr("SVG (*.svg);;PDF (*.pdf)"), &selected);
    if (path.isEmpty())
        return;
    const bool pdf =
        path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) || selected.startsWith(QLatin1String("PDF"));
    QString error;
    if (!exportFigure(path, v, m_figureOptions ? *m_figureOptions : FigureExportOptions{}, pdf, &error, node))
        Q_EMIT errorOccurred(error);
}

void InteractivePage::setFigureOptions(const FigureExportOptions& options)
{
    m_figureOptions = std::make_shared<FigureExportOptions>(options);
}

bool InteractivePage::exportPng(const QString& path, View v, QString* error) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    const QImage img =
        v == View::Sequence
            ? m_sequence->renderImage(2.0)
            : astView(v == View::Partial ? ascviz::AstView::Partial : ascviz::AstView::Complete)->renderImage(2.0);
    if (img.isNull() || !img.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool InteractivePage::exportJson(const QString& path, QString* error) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    const std::string text =
        evalResultJson(*shown()->eval).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return writeBytes(path, text, error);
}

bool InteractivePage::exportHtml(const QString& path, QString* error) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to export yet.");
        return false;
    }
    const EvalResult& r = *shown()->eval;
    const auto& by = shown()->model;
    nlohmann::json doc = evalDocumentJson(r, r.tree.language(), by ? by->dtype : std::string());
    auto& tokens = doc.at("tokens");
    for (std::size_t i = 0; i < tokens.size() && i < r.scored.tokens.size(); ++i) {
        const auto& top = r.scored.tokens[i].top;
        if (top.empty())
            continue;
        nlohmann::json alts = nlohmann::json::array();
        for (const auto& alt : top)
            alts.push_back({{"id", alt.id}, {"text", alt.text}, {"prob", alt.prob}});
        tokens[i]["top"] = std::move(alts);
    }
    doc["text"] = r.scored.text;
    doc["share"] = {{"ascviz_version", ascvizVersion()},
                    {"model_fingerprint",
                     by && !by->fingerprint.empty() ? nlohmann::json(by->fingerprint) : nlohmann::json(nullptr)},
                    {"source", "the AsC-Viz GUI's Interactive page"}};
    try {
        writeShareHtml(std::filesystem::path(toUtf8(path)), doc, SharePage::Snippet,
                       "AsC-Viz: " + (by ? by->name : r.scored.model));
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    return true;
}

bool InteractivePage::saveSession(const QString& path, QString* error) const
{
    if (!shown()) {
        if (error)
            *error = tr("There is no result to save yet.");
        return false;
    }
    // Everything the shown numbers were made with, as they were made (not the page's settings now).
    ascviz::SessionData s;
    s.prompt = toUtf8(shown()->prompt);
    s.language = shown()->eval->tree.language();
    s.aggregation = shown()->eval->aggregation;
    s.aggregationScope = shown()->eval->scope;
    s.categoryFile = toUtf8(shown()->categoryFile);
    s.categoryTable = shown()->categoryTable;
    s.categorySha256 = s.categoryTable.empty() ? std::string() : sha256Hex(s.categoryTable);
    s.generation = shown()->generation; // the settings part of the options
    s.view = toUtf8(resultViewName(currentView()));
    s.origin = shown()->origin;
    s.cancelled = shown()->cancelled;
    s.scored = shown()->eval->scored;
    s.ascEval = shown()->eval->features.ascEval;
    s.modelName = shown()->eval->scored.model;
    if (const auto& by = shown()->model) {
        s.modelName = by->name;
        s.modelDir = by->dir.string();
        s.architecture = by->architecture;
        s.modelDtype = by->dtype;
        s.modelFingerprint = by->fingerprint;
    }
    try {
        writeSessionFile(std::filesystem::path(toUtf8(path)), s);
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    setDocument(path, true);
    return true;
}

bool InteractivePage::openSession(const QString& path, QString* error)
{
    ascviz::SessionData s;
    try {
        s = readSessionFile(std::filesystem::path(toUtf8(path)));
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    QStringList notes;
    if (!s.missing.empty()) {
        QStringList missing;
        for (const auto& m : s.missing)
            missing << toQString(m);
        notes << tr("This session file (version %1) does not record the %2; the page's current settings are used.")
                     .arg(s.version)
                     .arg(missing.join(QStringLiteral(", ")));
    }
    // The language first: the category table belongs to it.
    if (!s.language.empty() && !selectLanguage(m_languageBox, toQString(s.language)))
        notes << tr("The session's language %1 is not registered here; the text is parsed as %2.")
                     .arg(toQString(s.language), language());
    const QString prompt = toQString(s.prompt);
    setPrompt(prompt);
    GenerationOptions generation;
    static_cast<GenerationSettings&>(generation) = s.generation;
    setGenerationOptions(generation);
    restoreCategories(s, &notes);
    setCategoryLabel();
    {
        const QSignalBlocker block(m_aggregation);
        m_aggregation->setCurrentIndex(m_aggregation->findData(int(s.aggregation)));
    }
    {
        const QSignalBlocker block(m_scope);
        m_scope->setCurrentIndex(m_scope->findData(int(s.aggregationScope)));
    }
    m_engine->setAggregation(s.aggregation);
    m_engine->setAggregationScope(s.aggregationScope);
    m_session.pendingView = toQString(s.view);
    // The model the scores came from, as the session recorded it (compared with the loaded one: modelNote).
    std::optional<ModelInfo> scoredBy;
    if (!s.modelName.empty() || !s.modelFingerprint.empty()) {
        scoredBy.emplace();
        scoredBy->name = s.modelName;
        scoredBy->dir = s.modelDir;
        scoredBy->architecture = s.architecture;
        scoredBy->dtype = s.modelDtype;
        scoredBy->fingerprint = s.modelFingerprint;
    }
    m_engine->analyze(std::move(s.scored), s.origin, prompt, generation, s.cancelled, std::move(scoredBy));
    // After analyze: its job start must not clear what is said about this session.
    m_session.notes = notes;
    m_session.checkAscEval = true;
    m_session.ascEval = s.ascEval;
    setDocument(path, true);
    return true;
}

void InteractivePage::restoreCategories(const SessionData& s, QStringList* notes)
{
    const QString file = toQString(s.categoryFile);
    QString error;
    // The file when it still holds the table the session was saved with (a version 1 session: as it is).
    if (m_engine->setCategoryFile(file, &error) &&
        (s.categoryTable.empty() || sha256Hex(m_engine->categoryText()) == s.categorySha256))
        return;
    // Else the session's copy of the table.
    if (!s.categoryTable.empty() && m_engine->setCategoryTable(file, s.categoryTable, &error)) {
        *notes << tr("The category table %1 changed since the session was saved (or cannot be read); the "
                     "session's copy of it is used.")
                      .arg(file.isEmpty() ? tr("bundled with %1").arg(language()) : file);
        return;
    }
    m_engine->setCategoryFile(QString());
    *notes << tr("The session's category file could not be used (%1); the bundled table is used instead.").arg(error);
}

void InteractivePage::setCodeAggregation(const QString& name)
{
    if (name.isEmpty())
        return;
    try {
        setAggregation(parseAggregation(toUtf8(name)));
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(tr("Unknown aggregation θ %1: %2").arg(name, toQString(e.what())));
    }
}

// ---------------------------------------------------------------- language

QString InteractivePage::language() const
{
    return m_languageBox->currentData().toString();
}

void InteractivePage::setLanguage(const QString& id)
{
    selectLanguage(m_languageBox, id);
}

void InteractivePage::applyLanguage()
{
    const QString id = language();
    const LanguageInfo* info = findLanguage(id);
    QString error;
    if (!info || !m_engine->setLanguage(id, &error, !m_keepShownLanguage)) {
        Q_EMIT errorOccurred(tr("Cannot use the language %1: %2").arg(id, error));
        return;
    }
    m_highlighter->setRules(info->highlight);
    m_editor->setPlaceholderText(toQString(info->placeholder));
    QStringList openers;
    for (const auto& o : info->indentAfter)
        openers << toQString(o);
    m_editor->setIndentRules(openers, toQString(info->indentUnit));
    setCategoryLabel();
    updateNotice(); // the shown result may now be of another language than the chosen one
}

bool InteractivePage::openPromptFile(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("cannot read %1: %2").arg(path, f.errorString());
        return false;
    }
    // Bounded work (docs/limits.md): QPlainTextEdit holds the GUI thread ~0.5 s a megabyte; a model scores at
    // most maxTextBytes anyway.
    if (f.size() > kMaxEditorFileBytes) {
        if (error)
            *error = tr("%1 is %2, over the %3 bytes the editor opens (a model scores at most %4 bytes of a "
                        "text)")
                         .arg(QFileInfo(path).fileName(), toQString(limits::describeBytes(std::size_t(f.size()))))
                         .arg(kMaxEditorFileBytes)
                         .arg(qulonglong(m_engine->maxTextBytes()));
        return false;
    }
    // Not UTF-8: refused with the CLI's line (file and byte offset), the editor left as it was.
    const QByteArray bytes = f.readAll();
    try {
        requireUtf8(std::string_view(bytes.constData(), std::size_t(bytes.size())), toUtf8(path));
    } catch (const InputError& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
    // The file's language for the editor and the next Score; the result on screen stays as it was evaluated
    // (its text is not the file's), with a notice when its language differs.
    const QString lang = languageForFile(path);
    if (!lang.isEmpty()) {
        m_keepShownLanguage = true;
        setLanguage(lang);
        m_keepShownLanguage = false;
    }
    setPrompt(QString::fromUtf8(bytes));
    setDocument(path, false);
    return true;
}

// ---------------------------------------------------------------- Page

QList<QAction*> InteractivePage::menuActions()
{
    if (m_menuActions.isEmpty()) {
        const std::pair<View, QString> views[] = {{View::Sequence, tr("&Sequence")},
                                                  {View::Partial, tr("AST &partial")},
                                                  {View::Complete, tr("AST &complete")}};
        for (const auto& [view, text] : views) {
            auto* a = new QAction(text, this);
            a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + int(view))));
            connect(a, &QAction::triggered, this, [this, v = view] { showView(v); });
            m_menuActions << a;
        }
    }
    return m_menuActions;
}

bool InteractivePage::canExport(ExportKind kind) const
{
    return shown() && kind != ExportKind::Csv;
}

QString InteractivePage::suggestedExportName(ExportKind kind) const
{
    return (kind == ExportKind::Json || kind == ExportKind::Html ? QStringLiteral("result")
                                                                 : resultViewName(currentView())) +
           QLatin1Char('.') + exportKindName(kind);
}

bool InteractivePage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    switch (kind) {
    case ExportKind::Svg:
        if (m_figureOptions)
            return exportFigure(path, currentView(), *m_figureOptions, false, error);
        return exportSvg(path, currentView(), error);
    case ExportKind::Pdf:
        return exportFigure(path, currentView(), m_figureOptions ? *m_figureOptions : FigureExportOptions{}, true,
                            error);
    case ExportKind::Png:
        return exportPng(path, currentView(), error);
    case ExportKind::Json:
        return exportJson(path, error);
    case ExportKind::Html:
        return exportHtml(path, error);
    case ExportKind::Csv:
        break;
    }
    if (error)
        *error = tr("The Interactive page has no table to export.");
    return false;
}

} // namespace ascviz::ui
