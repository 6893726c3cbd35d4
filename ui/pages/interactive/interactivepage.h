// The Interactive tab: prompt editor and generation controls on the left, the three views (sequence,
// AST partial, AST complete) in the middle, the details panel on the right. All model work runs in
// InteractiveEngine's jobs; this widget only shows immutable results.
#pragma once
#include "common/analysis.h"
#include "pages/interactive/interactivestate.h"
#include "pages/interactive/resultcanvas.h"
#include "pages/page.h"
#include "pages/scriptable.h"
#include "views/sequenceview.h"

#include <QStringList>
#include <QTextCursor>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace ascviz::ui {

class AstView;
class DetailsPanel;
class GenerationBox;
class LegendWidget;
class InteractiveEngine;
class ModelService;
class PromptEditor;
class ResultStore;
class SyntaxHighlighter;
class SequenceView;
class TextPositions;

// The widgets and their drawing; what is shown and selected is m_state's (InteractiveState), which the Inside panel
// and the Experts view follow, drawing on the views through ResultCanvas only.
class InteractivePage : public QWidget, public Page, public ScriptablePage, public ResultCanvas {
    Q_OBJECT
public:
    using View = ResultView;
    // `results` (optional) receives every result shown, for other pages.
    explicit InteractivePage(ModelService* models, ResultStore* results = nullptr, QWidget* parent = nullptr);

    // Widgets (for the main window's actions and for tests).
    QPlainTextEdit* editor() const;
    QPushButton* generateButton() const { return m_generate; }
    QPushButton* stopButton() const { return m_stop; }
    // Scoring a long text: windows scored of all (hidden when not scoring).
    QProgressBar* scoreProgress() const { return m_progress; }
    QPushButton* scoreButton() const { return m_score; }
    // "Edit completion": puts the shown generated text (prompt + completion) in the editor; Score then re-scores
    // the edited text with the prompt boundary kept (the text after it stays the completion).
    QPushButton* editCompletionButton() const { return m_editCompletion; }
    void editCompletion();
    // The prompt boundary in the editor (UTF-8 bytes of its text) while a completion is edited; -1 otherwise.
    qint64 completionBoundary() const;
    // The node at the editor's cursor (tree-sitter-playground style; -1 none), highlighted in the AST views.
    int cursorNode() const { return m_link.cursorNode; }
    QSpinBox* maxNewTokensBox() const;
    QComboBox* decodingBox() const;
    QComboBox* aggregationBox() const { return m_aggregation; }
    QComboBox* aggregationScopeBox() const { return m_scope; } // θ over tokens | children
    SequenceView* sequenceView() const { return m_sequence; }
    AstView* astView(ascviz::AstView v) const;
    DetailsPanel* details() const { return m_details; }
    LegendWidget* legend() const { return m_legend; }
    QLabel* statusLabel() const { return m_status; }
    // What the numbers shown may not be: the model that scored them is not the loaded one (or none is
    // loaded), a session file did not record a setting, its category file changed. Hidden when all is well.
    QLabel* noticeLabel() const { return m_notice; }
    InteractiveEngine* engine() const { return m_engine; }
    // The language chooser (registry languages; the default at first).
    QComboBox* languageBox() const { return m_languageBox; }
    QString language() const override;
    void setLanguage(const QString& id) override;
    // Puts a source file in the editor; its extension chooses the language when a registered one claims it.
    // Refuses (false, *error names the size and the limit) a file over kMaxEditorFileBytes (docs/limits.md),
    // and a file that is not UTF-8 (*error: the CLI's line, naming the file and the first invalid byte's
    // offset); a refused file leaves the editor and the language as they were.
    // A file dropped on the editor comes here too; a paste or drop of text that would make the editor's text
    // longer than kMaxEditorFileBytes is refused by the editor (PromptEditor) with errorOccurred.
    bool openPromptFile(const QString& path, QString* error = nullptr);
    static constexpr qint64 kMaxEditorFileBytes = 512 * 1024;

    GenerationOptions generationOptions() const;
    void setGenerationOptions(const GenerationOptions& g) override;
    void setAggregation(Aggregation a) override;
    // Puts the text in the editor; refuses (false, errorOccurred) a text over kMaxEditorFileBytes.
    bool setPrompt(const QString& text) override;
    qint64 maxPromptBytes() const override { return kMaxEditorFileBytes; }
    QString prompt() const;

    View currentView() const;
    void showView(View v) override;

    // Background colours over byte spans of the shown text in the editor (the attribution of the prompt's nodes),
    // under the selection mark, while the editor holds the shown text or its beginning (the prompt of a generated
    // text); a later span wins where spans overlap. Empty clears; editing the text or a new result clears too.
    void setCodeColours(std::vector<SpanColour> spans);
    // --- ResultCanvas (the Inside panel's and the Experts view's way to the views)
    InteractiveState* state() const override { return m_state; }
    void setSpanColours(const QColor& rest, const std::vector<SpanColour>& spans, bool inEditor) override;
    void clearSpanColours() override;
    void paintNodes(const NodePaint& paint) override;
    void highlightNodes(const QVector<int>& nodes) override;
    void redrawNodes() override;
    void setSignedScale(const QString& title, std::function<QColor(double)> color, double maxAbs, const QColor& none,
                        const QString& noneLabel) override;
    void setRangeScale(const QString& title, std::function<QColor(double)> color, double lo, double hi,
                       const QColor& none, const QString& noneLabel) override;
    void clearScale() override;
    const std::vector<SpanColour>& codeColours() const { return m_link.codeColours; }

    // The result the views show (null before the first one).
    AnalysisPtr shown() const { return m_state->shown(); }
    // A copy of the shown result with other values (the layer lens's NtP_ℓ / AsC-Eval_ℓ at the Inside panel's
    // slider): the three views, the details, the summary line and the legend show it, `what` names it in the
    // summary and the legend ("layer 3 of 8"). Null, or a new result, shows the result itself again.
    void showDerived(AnalysisPtr derived, const QString& what);
    // What the views, the details and the summary show: the derived copy while there is one, else shown().
    AnalysisPtr displayed() const { return m_state->displayed(); }
    QString derivedDescription() const { return m_state->derivedDescription(); }
    QLabel* summaryLabel() const { return m_summary; }

    // Linked selection.
    void selectNode(int node) override;
    void selectToken(int token) override;
    void clearSelection();
    int selectedNode() const { return m_state->selectedNode(); }
    int selectedToken() const { return m_state->selectedToken(); }

    // Exports of the shown result; false with a message on failure.
    bool exportSvg(const QString& path, View v, QString* error = nullptr) const;
    bool exportPng(const QString& path, View v, QString* error = nullptr) const;
    // The view as a paper figure (figure/views.h: astFigure, sequenceFigure) in the options' style; SVG or PDF.
    // An AST view is drawn as it is seen (AstView::shownLayout: its folds, code text and the subtree in view; no
    // further collapsing or turning); `subtree` >= 0 draws that node's subtree with the view's folds instead.
    bool exportFigure(const QString& path, View v, const FigureExportOptions& options, bool pdf,
                      QString* error = nullptr, int subtree = -1) const;
    // A node's "Export subtree…" (the AST views' context menu): asks for an SVG or PDF file and draws that subtree.
    void exportSubtree(View v, int node);
    bool exportJson(const QString& path, QString* error = nullptr) const;
    // One self-contained interactive HTML page of the shown result (docs/share.md): eval's document with the
    // text, the model's fingerprint and the tokens' alternatives; written through a temporary file.
    bool exportHtml(const QString& path, QString* error = nullptr) const;
    // A session keeps the shown result and everything its numbers depend on (results/session.h); opening one
    // restores the language, θ and category table it was saved with and shows its scores without running the
    // model (Score re-scores with the loaded model).
    bool saveSession(const QString& path, QString* error = nullptr) const override;
    bool openSession(const QString& path, QString* error = nullptr);

    // --- ScriptablePage
    void watchResults(QObject* context, std::function<void()> shown,
                      std::function<void(const QString&)> failed) override;

    // --- Page
    void attach(PageHost* host) override;
    QString title() const override { return tr("Interactive"); }
    QWidget* widget() override { return this; }
    QString menuTitle() const override { return tr("&View"); }
    QList<QAction*> menuActions() override;
    bool canExport(ExportKind kind) const override;
    QString suggestedExportName(ExportKind kind) const override;
    // SVG: the paper figure once File › Export gave figure options, else render's standalone SVG; PDF: the
    // paper figure (default style without options).
    bool exportTo(ExportKind kind, const QString& path, QString* error) override;
    bool exportsFigure(ExportKind kind) const override
    {
        return (kind == ExportKind::Svg || kind == ExportKind::Pdf) && shown();
    }
    void setFigureOptions(const FigureExportOptions& options) override;
    bool hasSession() const override { return true; }
    bool restoreSession(const QString& path, QString* error) override { return openSession(path, error); }
    QString documentPath() const override { return m_document.path; }
    bool isDocumentModified() const override { return m_document.modified || hasUnsavedResult(); }
    bool hasUnsavedResult() const override { return shown() && m_document.resultUnsaved; }
    bool openDocument(const QString& path, QString* error) override { return openPromptFile(path, error); }
    void onModelChanged() override
    {
        updateButtons();
        updateNotice();
    }
    bool canInspectCode() const override { return true; }
    void setCode(const QString& code) override { setPrompt(code); }
    void setCodeLanguage(const QString& id) override
    {
        if (!id.isEmpty())
            setLanguage(id);
    }
    void setCodeAggregation(const QString& name) override;
    bool inspectCode(const QString& code) override
    {
        scoreCode(code);
        return true;
    }

public Q_SLOTS:
    void generate() override;
    void score() override;
    void stop();
    // Puts `code` in the editor and scores it (the Batch tab's "open snippet").
    void scoreCode(const QString& code);
    void chooseCategoryFile();
    void resetCategoryFile();

Q_SIGNALS:
    // The views show a new result (after generation, scoring, a settings change or opening a session).
    void resultShown();
    // The linked selection changed (a node, a token or none: -1).
    void selectionChanged(int node, int token);
    void errorOccurred(const QString& message);
    void statusMessage(const QString& message);

private:
    QWidget* buildControls();
    QWidget* buildViews();
    QWidget* buildAstPage(AstView* view);
    void updateButtons();
    void onAnalysisReady(quint64 job);
    void onJobStarted(quint64 job);
    void onToken(quint64 job, const QString& piece, double ntp, int index);
    void onJobFailed(quint64 job, const QString& message);
    void onScoringProgress(quint64 job, int done, int total);
    void onScoringStopped(quint64 job);
    void updateSummary();
    static QString resultStatus(const Analysis& a);
    void applySelection(); // m_state->reselect()
    void drawSelection();  // the views, the details and the editor show m_state's selection
    void drawDisplayed();  // the views show m_state's displayed result
    void setCategoryLabel();
    void applyLanguage();
    void restoreCategories(const SessionData& s, QStringList* notes);
    QString modelNote(const Analysis& a) const;
    void updateNotice();
    // editorlink.cpp: the editor's cursor and the views' selection follow each other; the document state.
    void linkEditor();
    void onEditorCursorMoved();
    void onEditorEdited();
    void showSelectionInEditor();
    QList<QTextEdit::ExtraSelection> codeColourSelections() const;
    void setDocument(const QString& path, bool resultSaved) const;
    // The shown text's positions when the editor holds exactly that text, else null (cached per result and edit).
    const TextPositions* editorShowsResult() const;

    InteractiveState* m_state; // what is shown and selected
    InteractiveEngine* m_engine;
    PageHost* m_host = nullptr;
    ResultStore* m_results;
    SyntaxHighlighter* m_highlighter = nullptr;
    QComboBox* m_languageBox = nullptr;
    QList<QAction*> m_menuActions;
    PromptEditor* m_editor = nullptr;
    GenerationBox* m_generation = nullptr; // max new tokens, decoding, temperature, top-p, top-k, seed
    QComboBox* m_aggregation = nullptr;
    QComboBox* m_scope = nullptr;
    QLineEdit* m_categoryLabel = nullptr;
    QPushButton* m_generate = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_score = nullptr;
    QPushButton* m_editCompletion = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_notice = nullptr;
    QLabel* m_summary = nullptr;
    QTabWidget* m_views = nullptr;
    SequenceView* m_sequence = nullptr;
    AstView* m_partial = nullptr;
    AstView* m_complete = nullptr;
    LegendWidget* m_legend = nullptr;
    DetailsPanel* m_details = nullptr;

    std::shared_ptr<FigureExportOptions> m_figureOptions; // File › Export's figure options (none: render's SVG)
    int m_streamed = 0;
    bool m_stopping = false;          // Stop was pressed; the job has not stopped yet
    bool m_keepShownLanguage = false; // openPromptFile changes the language: the shown result is not re-parsed
    // A session being opened, until the next model job: the view it asks for, its AsC-Eval as saved (checked
    // against the recomputed one when it is shown), what it did not record or could not restore.
    struct SessionCheck {
        QString pendingView;
        bool checkAscEval = false;
        std::optional<double> ascEval;
        QStringList notes;
    } m_session;
    // The file or session in the editor (set by opening/saving; mutable: saving a session is const) and whether
    // the editor or the result changed since.
    struct Document {
        QString path;
        bool modified = false;
        bool resultUnsaved = false; // the shown result came from the model and is in no session file
    };
    mutable Document m_document;
    // The editor and the views following each other (editorlink.cpp).
    struct EditorLink {
        bool settingText = false; // the page itself is putting text in the editor
        bool syncing = false;     // the page moves the editor's cursor (not the user)
        int cursorNode = -1;
        std::vector<SpanColour> codeColours; // setCodeColours
        std::optional<QTextCursor> boundary; // the prompt boundary while a completion is edited (follows edits)
        mutable std::shared_ptr<std::pair<AnalysisPtr, std::shared_ptr<TextPositions>>> positions; // per result, edit
    } m_link;
};

} // namespace ascviz::ui
