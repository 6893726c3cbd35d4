#include "helpmenu.h"

#include "common/appidentity.h"
#include "common/textpos.h"

#include "ascviz/model/model.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

namespace ascviz::ui {

namespace {

// Every action with a shortcut under `menu` (submenus included), as table rows "menu › action | keys".
void collectShortcuts(const QMenu* menu, const QString& path, QString& rows)
{
    for (const QAction* a : menu->actions()) {
        if (a->menu()) {
            collectShortcuts(a->menu(), path + QStringLiteral(" › ") + a->text().remove(QLatin1Char('&')), rows);
            continue;
        }
        if (a->shortcut().isEmpty() || a->isSeparator())
            continue;
        rows += QStringLiteral("<tr><td>%1 › %2</td><td>&nbsp;&nbsp;<b>%3</b></td></tr>")
                    .arg(path.toHtmlEscaped(), a->text().remove(QLatin1Char('&')).toHtmlEscaped(),
                         a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
    }
}

} // namespace

QString aboutText()
{
    return QObject::tr("<h3>AsC-Viz %1</h3>"
                       "<p>Explains what a large language model for code does in terms of the code's syntax: the "
                       "probability the model gave each token (NtP), aggregated per AST node (AsC-Eval).</p>"
                       "<p>LibTorch %2 (%3)<br>CUDA %4<br>CPU threads: %5</p>")
        .arg(versionString(), toQString(torchVersion()).toHtmlEscaped(), toQString(torchBuild()).toHtmlEscaped(),
             cudaAvailable() ? QObject::tr("available") : QObject::tr("not available"),
             toQString(cpuThreadSetup()).toHtmlEscaped());
}

QString quickStartText()
{
    return QObject::tr(
        "<h3>Quick start</h3><ol>"
        "<li><b>Interactive</b>: type or open code (File › Open session, or the page's Open… for a source file), "
        "then <b>Generate</b> a completion or <b>Score</b> the text as it is. The sequence view colours each token "
        "by its NtP; the AST views colour each node by its AsC-Eval (θ: the Aggregation box).</li>"
        "<li><b>Batch</b>: choose a corpus (JSON Lines, CSV or a folder; <i>Sample</i> is the bundled one) and a "
        "results database, then <b>Start</b>. A stopped run continues with <b>Resume</b>.</li>"
        "<li><b>Analysis</b>: causal analysis, PERPLEXED and the heat map over one or more results databases.</li>"
        "<li><b>Galeras</b>: the Galeras testbed's causal runs (treatments, confounders) over a results "
        "database.</li>"
        "<li><b>Inside</b> (on the Interactive page): the layer lens (NtP at every layer), attribution of a node "
        "to the prompt's nodes, and <b>Heads</b>: which attention heads follow which syntactic relations "
        "(CodeSyntax).</li>"
        "<li><b>Study</b>: user studies over stored evaluations.</li></ol>"
        "<p>The model: File › Open model folder (any Hugging Face decoder checkpoint of a family in Help › "
        "Model families), or the bundled model. "
        "The same work from a terminal: <code>ascviz-cli --help</code>; the README has both.</p>");
}

QString shortcutsText(const QMenuBar* bar)
{
    QString rows;
    for (const QAction* a : bar->actions())
        if (a->menu())
            collectShortcuts(a->menu(), a->text().remove(QLatin1Char('&')), rows);
    return QObject::tr("<h3>Keyboard shortcuts</h3><table>%1</table>").arg(rows);
}

QString modelFamiliesText()
{
    QString rows;
    for (const ModelFamily& f : modelFamilies())
        rows += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td></tr>")
                    .arg(toQString(f.modelType).toHtmlEscaped(), toQString(f.honours).toHtmlEscaped());
    return QObject::tr("<h3>Model families</h3><p>A model folder loads when its config.json's <code>model_type</code> "
                       "is one of these; the options each honours are listed (anything else is refused at load, "
                       "naming the key).</p><table>%1</table>")
        .arg(rows);
}

QMenu* addHelpMenu(QMenuBar* bar, QWidget* parent)
{
    QMenu* help = bar->addMenu(QObject::tr("&Help"));
    QAction* quick = help->addAction(QObject::tr("&Quick start"), parent, [parent] {
        QMessageBox::information(parent, QObject::tr("AsC-Viz quick start"), quickStartText());
    });
    quick->setShortcut(QKeySequence::HelpContents);
    help->addAction(QObject::tr("&Keyboard shortcuts"), parent, [bar, parent] {
        QMessageBox::information(parent, QObject::tr("AsC-Viz keyboard shortcuts"), shortcutsText(bar));
    });
    help->addAction(QObject::tr("Model &families"), parent, [parent] {
        QMessageBox::information(parent, QObject::tr("AsC-Viz model families"), modelFamiliesText());
    });
    help->addSeparator();
    QAction* about = help->addAction(QObject::tr("&About AsC-Viz"), parent, [parent] {
        QMessageBox::about(parent, QObject::tr("About AsC-Viz"), aboutText());
    });
    about->setMenuRole(QAction::AboutRole);
    return help;
}

} // namespace ascviz::ui
