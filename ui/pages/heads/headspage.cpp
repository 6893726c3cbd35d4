// The Heads page: wiring, the analysis job and the two SVG views (method.md §11).
#include "pages/heads/headspage.h"

#include "common/analysis.h"
#include "common/errortext.h"
#include "common/figureoptions.h"
#include "common/languages.h"
#include "common/textpos.h"
#include "pages/heads/ablationview.h"
#include "services/jobtracker.h"
#include "services/modelservice.h"
#include "views/astedges.h"
#include "views/astview.h"
#include "views/prompteditor.h"

#include "ascviz/attention/headpartial.h"
#include "ascviz/attention/topkeys.h"
#include "ascviz/base/error.h"
#include "ascviz/eval/eval.h"
#include "ascviz/eval/evaluate.h"
#include "ascviz/figure/heads.h"
#include "ascviz/model/model.h"
#include "ascviz/model/observer.h"
#include "ascviz/render/layout.h"
#include "ascviz/syntax/language.h"

#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QSvgWidget>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace ascviz::ui {

// What the views show: one analyzed text (relations, tokens, its one-text tally and the heaviest keys), or a
// corpus run's tally (no text).
struct HeadsResult {
    std::string text;
    std::vector<Relation> relations;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::optional<HeadTally> tally;
    std::optional<AttentionTopKeys> top;
    std::string source; // "this text" or the partial file
    AnalysisPtr ast;    // the complete AST view's analysis (null for a corpus run; layoutError when Graphviz failed)
};

namespace {

// The model's attention handed to the scorer and the view's reduction, layer by layer.
class HeadsObserver : public IntermediateObserver {
public:
    HeadsObserver(HeadScorer& s, AttentionTopKeys& t) : m_scorer(s), m_top(t) {}
    bool wants(std::string_view name, int) const override { return name == intermediate::kAttention; }
    void observe(const Intermediate& v) override
    {
        m_scorer.observeAttention(v.layer, v.position, v.shape, v.data);
        m_top.observeAttention(v.layer, v.position, v.shape, v.data);
    }

private:
    HeadScorer& m_scorer;
    AttentionTopKeys& m_top;
};

constexpr double kPixelsPerPt = 1.5; // the pictures on screen

// The SVG of a figure shown in `w` at kPixelsPerPt.
QString showFigure(QSvgWidget* w, const Figure& f)
{
    const QString svg = toQString(figureToSvg(f));
    // Qt SVG takes a family list as one name: the code's monospace family alone on screen.
    QString shown = svg;
    shown.replace(QStringLiteral("font-family=\"DejaVu Sans Mono, monospace\""),
                  QStringLiteral("font-family=\"DejaVu Sans Mono\""));
    w->load(shown.toUtf8());
    w->setFixedSize(static_cast<int>(std::ceil(f.widthPt * kPixelsPerPt)),
                    static_cast<int>(std::ceil(f.heightPt * kPixelsPerPt)));
    return svg;
}

void analyzeText(const LanguageModel& model, const std::string& language, Aggregation aggregation, HeadsResult& r)
{
    // One parse, one scoring (eval/evaluate.h): the scorer gets the tree the evaluation uses, takes the relations
    // from it and scores the text with the attention observer; the AST is coloured with the page's θ.
    EvalRequest req;
    req.language = language;
    req.aggregation = aggregation;
    auto a = std::make_shared<Analysis>();
    a->eval = std::make_shared<const EvalResult>(
        evaluateText(r.text, req, [&](const std::string& text, const SyntaxTree& tree) {
            r.relations = syntaxRelations(tree);
            r.spans = model.tokenizer().encode(text, false).offsets;
            attachTokens(r.relations, r.spans);
            const int layers = model.info().layers, bos = model.tokenizer().addsBos() ? 1 : 0;
            HeadScorer scorer(layers, bos, headEdges(r.relations, HeadMetric::First));
            r.top.emplace(layers, bos, 5);
            HeadsObserver obs(scorer, *r.top);
            ScoreOptions so;
            so.topK = 0;
            so.observer = &obs;
            ScoredText s = model.score(text, so);
            if (r.top->heads() == 0)
                throw ModelError(
                    "the model delivered no attention weights for this text (it needs at least two tokens)");
            std::vector<std::string> texts;
            for (const auto& t : s.tokens)
                texts.push_back(s.text.substr(t.start, t.end - t.start));
            r.tally.emplace(layers, 20, LanguageRegistry::instance().get(language).baselineKeywords());
            r.tally->add(r.relations, texts, scorer);
            return s;
        }));
    r.source = "this text";
    // The complete AST view (every node, keywords included), where the relation's ends and the attended tokens'
    // nodes are highlighted.
    try {
        a->complete = std::make_shared<const GraphLayout>(layoutAst(*a->eval, ascviz::AstView::Complete));
    } catch (const Error& e) {
        a->layoutError = toQString(e.what());
    }
    r.ast = a;
}

// The deepest node holding the first visible byte of a token (-1 when none).
int nodeOfToken(const SyntaxTree& tree, const std::string& text, std::pair<std::size_t, std::size_t> span)
{
    std::size_t b = span.first;
    while (b < span.second && b < text.size() && (text[b] == ' ' || text[b] == '\n' || text[b] == '\t'))
        ++b;
    int best = -1;
    for (const auto& n : tree.nodes())
        if (n.start <= b && b < n.end && (best < 0 || n.depth > tree.nodes()[static_cast<std::size_t>(best)].depth))
            best = n.id;
    return best;
}

} // namespace

HeadsPage::HeadsPage(ModelService* models, ResultStore*, QWidget* parent) : QWidget(parent), m_models(models)
{
    buildUi();
}

HeadsPage::~HeadsPage() = default;

void HeadsPage::buildUi()
{
    auto* top = new QHBoxLayout;
    m_language = new QComboBox;
    fillLanguageBox(m_language);
    m_run = new QPushButton(tr("Analyze heads"));
    m_openRun = new QPushButton(tr("Open corpus run…"));
    m_openRun->setToolTip(tr("A run database of `ascviz-cli analyze heads --partial` (or an old partial file): its "
                             "heat maps over the corpus"));
    m_relation = new QComboBox;
    m_relation->setMinimumContentsLength(36);
    m_layer = new QSpinBox;
    m_head = new QSpinBox;
    top->addWidget(new QLabel(tr("Language")));
    top->addWidget(m_language);
    m_aggregation = new QComboBox;
    for (Aggregation a : {Aggregation::Median, Aggregation::Mean, Aggregation::Max, Aggregation::Min})
        m_aggregation->addItem(toQString(toString(a)), int(a));
    m_aggregation->setToolTip(tr("θ: how a node's aligned token NtPs become its AsC-Eval in the AST view"));
    top->addWidget(new QLabel(tr("θ")));
    top->addWidget(m_aggregation);
    top->addWidget(m_run);
    top->addWidget(m_openRun);
    top->addSpacing(16);
    top->addWidget(new QLabel(tr("Relation")));
    top->addWidget(m_relation, 1);
    top->addWidget(new QLabel(tr("Layer")));
    top->addWidget(m_layer);
    top->addWidget(new QLabel(tr("Head")));
    top->addWidget(m_head);

    m_code = new PromptEditor;
    m_code->setFont(QFont(QStringLiteral("monospace")));
    // Typed code keeps its indentation as in the Interactive editor (issue 54: every line began at column 0, so
    // typed Python was invalid): the language's block openers and indentation unit.
    const auto applyIndent = [this] {
        if (const LanguageInfo* info = findLanguage(m_language->currentData().toString())) {
            QStringList openers;
            for (const auto& o : info->indentAfter)
                openers << toQString(o);
            m_code->setIndentRules(openers, toQString(info->indentUnit));
        }
    };
    applyIndent();
    connect(m_language, &QComboBox::currentIndexChanged, this, applyIndent);
    m_code->setPlaceholderText(tr("Code to analyze; put the cursor on a token to see where the picked head looks"));
    m_heat = new QSvgWidget;
    m_arcs = new QSvgWidget;
    m_ast = new ui::AstView(ascviz::AstView::Complete);
    m_ast->setMinimumHeight(240);
    m_edges = std::make_unique<AstEdgeOverlay>(m_ast);
    m_heat->installEventFilter(this);
    auto scroll = [](QWidget* w) {
        auto* s = new QScrollArea;
        s->setWidget(w);
        s->setWidgetResizable(false);
        return s;
    };
    auto* views = new QHBoxLayout;
    auto* left = new QVBoxLayout;
    left->addWidget(m_code, 1);
    left->addWidget(scroll(m_heat), 1);
    views->addLayout(left, 2);
    auto* right = new QVBoxLayout;
    right->addWidget(scroll(m_arcs), 1);
    auto* astTabs = new QTabWidget;
    m_ablation = new AblationView(m_models);
    astTabs->addTab(m_ast, tr("AST"));
    astTabs->addTab(m_ablation, tr("Ablate"));
    right->addWidget(astTabs, 1);
    views->addLayout(right, 3);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    auto* main = new QVBoxLayout(this);
    main->addLayout(top);
    main->addLayout(views, 1);
    main->addWidget(m_status);

    connect(m_run, &QPushButton::clicked, this, &HeadsPage::analyze);
    connect(m_openRun, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Open a corpus run of analyze heads"), {},
                                                       tr("Heads runs (*.db *.jsonl);;All files (*)"));
        QString error;
        if (!f.isEmpty() && !openCorpusRun(f, &error))
            setStatus(error, true);
    });
    connect(m_relation, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_layer, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_head, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_code, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (!m_result || !m_result->top)
            return;
        const TextPositions pos(m_result->text);
        const std::size_t byte = pos.toByte(m_code->textCursor().position());
        for (std::size_t i = 0; i < m_result->spans.size(); ++i)
            if (byte >= m_result->spans[i].first && byte < m_result->spans[i].second) {
                pickToken(static_cast<int>(i));
                return;
            }
    });
    setStatus(tr("Write or paste code and press Analyze heads (the loaded model scores it)."));
}

bool HeadsPage::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_heat && event->type() == QEvent::MouseButtonPress && m_result) {
        const auto* e = static_cast<QMouseEvent*>(event);
        const double x = e->position().x() / kPixelsPerPt, y = e->position().y() / kPixelsPerPt;
        const int head = static_cast<int>((x - kHeadMapLeft) / kHeadMapCell);
        const int layer = static_cast<int>((y - kHeadMapTop) / kHeadMapCell);
        if (x >= kHeadMapLeft && y >= kHeadMapTop && layer < m_result->tally->layers() &&
            head < m_result->tally->heads())
            pickHead(layer, head);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void HeadsPage::setCode(const QString& code)
{
    m_code->setPlainText(code);
}

Aggregation HeadsPage::aggregation() const
{
    return Aggregation(m_aggregation->currentData().toInt());
}

void HeadsPage::setAggregation(Aggregation a)
{
    m_aggregation->setCurrentIndex(m_aggregation->findData(int(a)));
}

void HeadsPage::setCodeAggregation(const QString& name)
{
    if (name.isEmpty())
        return;
    try {
        setAggregation(parseAggregation(toUtf8(name)));
    } catch (const std::exception& e) {
        setStatus(tr("Unknown aggregation θ %1: %2").arg(name, toQString(e.what())), true);
    }
}

void HeadsPage::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
}

void HeadsPage::analyze()
{
    const auto model = m_models ? m_models->model() : nullptr;
    if (!model) {
        setStatus(tr("No model is loaded: load one first (the bundled model is the default)."), true);
        Q_EMIT headsAnalyzed(false, m_status->text());
        return;
    }
    if (m_job)
        return;
    auto res = std::make_shared<HeadsResult>();
    res->text = toUtf8(m_code->toPlainText());
    const std::string language = toUtf8(m_language->currentData().toString());
    const Aggregation agg = aggregation();
    auto error = std::make_shared<QString>();
    auto work = [model, language, agg, res, error](JobContext&) {
        try {
            analyzeText(*model, language, agg, *res);
        } catch (const std::exception& e) {
            *error = errorMessage(e); // the GUI's words (no command-line options)
        }
    };
    auto done = [this, res, error, language, agg] {
        m_job = 0;
        m_run->setEnabled(true);
        if (!error->isEmpty()) {
            setStatus(*error, true);
            Q_EMIT headsAnalyzed(false, *error);
            return;
        }
        m_result = res;
        m_token = -1;
        m_ablation->setText(res->text, language, agg);
        m_layer->setRange(0, res->tally->layers() - 1);
        m_head->setRange(0, res->tally->heads() - 1);
        const QString keep = m_relation->currentText();
        m_relation->blockSignals(true);
        m_relation->clear();
        for (const auto& [type, n] : res->tally->typeCounts())
            if (n > 0)
                m_relation->addItem(toQString(type));
        m_relation->blockSignals(false);
        selectRelation(keep);
        setStatus(tr("%1 relations, %2 relation types with edges, %3 tokens; heat map: top-1 first-token score of "
                     "each head on this text; put the cursor on a token to see the picked head's attention.")
                      .arg(res->relations.size())
                      .arg(m_relation->count())
                      .arg(res->spans.size()));
        refresh();
        Q_EMIT headsAnalyzed(true, {});
    };
    m_run->setEnabled(false);
    if (JobTracker* jobs = m_models->jobs()) {
        JobTracker::Callbacks cb;
        cb.finished = done;
        cb.failed = [this, error, done](const QString& m) {
            *error = m;
            done();
        };
        m_job = jobs->start(tr("Attention heads"), QStringLiteral("heads"), work, this, cb);
    } else {
        JobContext ctx;
        work(ctx);
        done();
    }
}

bool HeadsPage::openCorpusRun(const QString& partialFile, QString* error)
{
    try {
        const auto head = readHeadPartial(partialFile.toStdString(), nullptr).settings;
        auto res = std::make_shared<HeadsResult>();
        res->tally.emplace(head.layers, head.maxK, LanguageRegistry::instance().get(head.language).baselineKeywords());
        const auto got = readHeadPartial(partialFile.toStdString(), &*res->tally);
        res->source = head.model + " on " + std::to_string(res->tally->texts()) + " texts";
        if (!got.warning.empty()) // a last line cut by a killed run: dropped, and said so
            res->source += "; warning: " + got.warning;
        m_result = res;
        m_layer->setRange(0, res->tally->layers() - 1);
        m_head->setRange(0, std::max(0, res->tally->heads() - 1));
        m_relation->blockSignals(true);
        m_relation->clear();
        for (const auto& [type, n] : res->tally->typeCounts())
            if (n > 0)
                m_relation->addItem(toQString(type) + QStringLiteral("  (%1)").arg(n), toQString(type));
        m_relation->blockSignals(false);
        setStatus(tr("Corpus run %1: %2 (the arcs need a text: analyze one)").arg(partialFile, toQString(res->source)));
        refresh();
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

QStringList HeadsPage::relationTypes() const
{
    QStringList out;
    for (int i = 0; i < m_relation->count(); ++i)
        out << (m_relation->itemData(i).isValid() ? m_relation->itemData(i).toString() : m_relation->itemText(i));
    return out;
}

bool HeadsPage::selectRelation(const QString& type)
{
    const int i = relationTypes().indexOf(type);
    if (i < 0)
        return false;
    m_relation->setCurrentIndex(i);
    refresh();
    return true;
}

void HeadsPage::pickHead(int layer, int head)
{
    m_layer->setValue(layer);
    m_head->setValue(head);
    refresh();
}

void HeadsPage::pickToken(int token)
{
    m_token = token;
    refresh();
}

void HeadsPage::refresh()
{
    if (!m_result || !m_result->tally || m_relation->currentIndex() < 0)
        return;
    const QString typeQ = relationTypes().value(m_relation->currentIndex());
    const std::string type = toUtf8(typeQ);
    const int layer = m_layer->value(), head = m_head->value();
    m_ablation->setPicked(m_result->top ? layer : -1, head); // a corpus run has no text to ablate
    const auto scores = m_result->tally->headScores(type, 1);
    m_heatFig = std::make_shared<Figure>(headHeatmapFigure(scores, m_result->tally->layers(), m_result->tally->heads(),
                                                           type + ": top-1 score per head (" + m_result->source + ")",
                                                           {layer, head}));
    m_heatSvg = showFigure(m_heat, *m_heatFig);
    if (!m_result->top) {
        m_arcsSvg.clear();
        m_arcsFig.reset();
        m_arcs->load(QByteArray());
        return;
    }
    std::vector<std::pair<int, int>> edges;
    for (const auto& r : m_result->relations)
        if (r.type == type && !r.head.tokens.empty() && !r.dependent.tokens.empty())
            edges.emplace_back(r.head.tokens.front(), r.dependent.tokens.front());
    const int query = m_token >= 0 ? m_token : (edges.empty() ? -1 : edges.front().second);
    const auto keys = m_result->top->keys(layer, head, query);
    const std::string title = "L" + std::to_string(layer) + " H" + std::to_string(head) + ": attention of token " +
                              std::to_string(query) + " (red, width = weight); dashed: " + type;
    std::vector<std::pair<int, float>> weights;
    for (const auto& k : keys)
        weights.emplace_back(k.token, k.weight);
    m_arcsFig =
        std::make_shared<Figure>(attentionArcsFigure(m_result->text, m_result->spans, query, weights, edges, title));
    m_arcsSvg = showFigure(m_arcs, *m_arcsFig);
    // The AST: the relation's ends, the query's node and the nodes of the keys it attends to.
    if (m_result->ast && m_ast->analysis() != m_result->ast)
        m_ast->setAnalysis(m_result->ast);
    if (m_result->ast && m_result->ast->eval) {
        const SyntaxTree& tree = m_result->ast->eval->tree;
        QVector<int> nodes;
        QVector<QPair<int, int>> astEdges;
        for (const auto& r : m_result->relations)
            if (r.type == type) {
                nodes << r.head.node << r.dependent.node;
                astEdges.append({r.head.node, r.dependent.node});
            }
        auto addToken = [&](int t) {
            if (t >= 0 && static_cast<std::size_t>(t) < m_result->spans.size())
                if (const int n = nodeOfToken(tree, m_result->text, m_result->spans[static_cast<std::size_t>(t)]);
                    n >= 0)
                    nodes << n;
        };
        addToken(query);
        for (const auto& k : keys)
            addToken(k.token);
        m_highlighted = nodes;
        m_ast->setHighlightedNodes(nodes);
        m_edges->setEdges(astEdges);
    }
}

int HeadsPage::astEdgeCount() const
{
    return m_edges->drawnEdges();
}

void HeadsPage::setFigureOptions(const FigureExportOptions& options)
{
    m_figureOptions = std::make_shared<FigureExportOptions>(options);
}

bool HeadsPage::canExport(ExportKind kind) const
{
    return (kind == ExportKind::Svg || kind == ExportKind::Pdf) && m_heatFig;
}

QString HeadsPage::suggestedExportName(ExportKind kind) const
{
    return kind == ExportKind::Pdf ? QStringLiteral("heads.pdf") : QStringLiteral("heads.svg");
}

bool HeadsPage::exportTo(ExportKind kind, const QString& path, QString* error)
{
    if (!canExport(kind)) {
        if (error)
            *error = tr("nothing to export: analyze a text first");
        return false;
    }
    if (m_figureOptions) {
        try {
            const QString typeQ = relationTypes().value(m_relation->currentIndex());
            const std::string type = toUtf8(typeQ);
            const Figure paper = headHeatmapPaperFigure(m_result->tally->headScores(type, 1), m_result->tally->layers(),
                                                        m_result->tally->heads(),
                                                        type + ": top-1 score per head (" + m_result->source + ")",
                                                        m_figureOptions->style); // no selection frame (issue 54)
            writeFigure(paper, toUtf8(path), kind == ExportKind::Pdf);
            return true;
        } catch (const std::exception& e) {
            if (error)
                *error = toQString(e.what());
            return false;
        }
    }
    // The heat map, and the arcs below it: one Figure, written as SVG or PDF by the figure room. The heat map
    // without the on-screen selection frame (issue 54: an export is a figure, not a screenshot of the pick).
    try {
        const std::string type = toUtf8(relationTypes().value(m_relation->currentIndex()));
        const Figure heat =
            headHeatmapFigure(m_result->tally->headScores(type, 1), m_result->tally->layers(), m_result->tally->heads(),
                              type + ": top-1 score per head (" + m_result->source + ")");
        Figure page;
        page.title = heat.title;
        page.widthPt = std::max(heat.widthPt, m_arcsFig ? m_arcsFig->widthPt : 0.0);
        page.heightPt = heat.heightPt + (m_arcsFig ? m_arcsFig->heightPt : 0.0);
        page.append(heat, 0, 0);
        page.items.emplace_back(FigGroup{}); // a group the heat map left open ends with it
        if (m_arcsFig)
            page.append(*m_arcsFig, 0, heat.heightPt);
        writeFigure(page, toUtf8(path), kind == ExportKind::Pdf);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = toQString(e.what());
        return false;
    }
}

} // namespace ascviz::ui
