// One text-colour rule (render/layout.h textColourOn): for every fill of a set (the AsC-Eval scale, greys,
// primaries) the GUI (common/analysis.h textColorOn) picks the colour the exports write — the SVG heat map of
// render/ and the figure room's heat maps (categories x runs, layer x head).
#include "common/analysis.h"

#include "ascviz/figure/charts.h"
#include "ascviz/figure/heads.h"
#include "ascviz/render/heatmap.h"

#include <QRegularExpression>
#include <QTest>

#include <variant>

using namespace ascviz;
using namespace ascviz::ui;

class TestTextColour : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void guiAndCorePickTheSameColour();
    void svgHeatmapWritesTheGuisColour();
    void figuresDrawTheGuisColour();
};

namespace {

std::vector<double> scaleValues()
{
    std::vector<double> v;
    for (int i = 0; i <= 100; ++i)
        v.push_back(i / 100.0);
    return v;
}

std::vector<Rgb> fills()
{
    std::vector<Rgb> out;
    for (const double v : scaleValues())
        out.push_back(ascColor(v));
    out.push_back(ascColor(std::nullopt));
    for (int g = 0; g <= 255; g += 5)
        out.push_back(Rgb{static_cast<unsigned char>(g), static_cast<unsigned char>(g), static_cast<unsigned char>(g)});
    for (const Rgb c : {Rgb{255, 0, 0}, Rgb{0, 255, 0}, Rgb{0, 0, 255}, Rgb{255, 255, 0}, Rgb{0, 255, 255},
                        Rgb{255, 0, 255}, Rgb{5, 113, 176}, Rgb{202, 0, 32}})
        out.push_back(c);
    return out;
}

// The heat map's columns: one value of the scale per row, and an n/a row.
std::pair<std::vector<std::string>, std::vector<HeatmapColumn>> heatmapData()
{
    std::vector<std::string> rows;
    HeatmapColumn col;
    col.name = "run";
    for (const double v : scaleValues()) {
        rows.push_back("row " + std::to_string(rows.size()));
        col.values[rows.back()] = v;
    }
    rows.push_back("n/a row");
    col.values[rows.back()] = std::nullopt;
    return {rows, {col}};
}

// Every text of a figure drawn inside a filled rectangle (the last one drawn before it that holds its anchor):
// the GUI's colour for that fill is the text's colour.
int checkFigure(const Figure& f)
{
    int checked = 0;
    std::vector<FigRect> rects;
    for (const auto& item : f.items) {
        if (const auto* r = std::get_if<FigRect>(&item); r && r->fill) {
            rects.push_back(*r);
            continue;
        }
        const auto* t = std::get_if<FigText>(&item);
        if (!t)
            continue;
        for (auto it = rects.rbegin(); it != rects.rend(); ++it) {
            if (t->x < it->x || t->x > it->x + it->w || t->y < it->y || t->y > it->y + it->h)
                continue;
            if (it->x == 0 && it->y == 0 && it->w >= f.widthPt)
                break; // the page's background
            const QColor gui = textColorOn(toQColor(*it->fill));
            if (gui != toQColor(t->color)) {
                qWarning("text '%s' on %s: drawn %s, the GUI picks %s", t->text.c_str(),
                         qPrintable(toQColor(*it->fill).name()), qPrintable(toQColor(t->color).name()),
                         qPrintable(gui.name()));
                return -1;
            }
            ++checked;
            break;
        }
    }
    return checked;
}

} // namespace

void TestTextColour::guiAndCorePickTheSameColour()
{
    int white = 0, dark = 0;
    for (const Rgb fill : fills()) {
        const QColor gui = textColorOn(toQColor(fill));
        QCOMPARE(gui, toQColor(textColourOn(fill)));
        (gui == QColor(Qt::white) ? white : dark) += 1;
    }
    QVERIFY(white > 10); // the set has both kinds of fill
    QVERIFY(dark > 10);
    QCOMPARE(textColorOn(QColor(Qt::black)), QColor(Qt::white));
    QCOMPARE(textColorOn(QColor(Qt::white)), QColor(0x11, 0x11, 0x11));
}

void TestTextColour::svgHeatmapWritesTheGuisColour()
{
    const auto [rows, columns] = heatmapData();
    const QString svg = QString::fromStdString(renderHeatmapSvg(rows, columns));
    static const QRegularExpression cell(
        QStringLiteral("data-value=\"[^\"]*\">\\s*<rect [^>]*fill=\"(#[0-9a-f]{6})\"/>\\s*<text "
                       "[^>]*fill=\"(#[0-9a-f]{6})\">([^<]*)</text>"));
    int n = 0;
    for (auto it = cell.globalMatch(svg); it.hasNext(); ++n) {
        const auto m = it.next();
        QCOMPARE(QColor(m.captured(2)), textColorOn(QColor(m.captured(1))));
    }
    QCOMPARE(n, static_cast<int>(rows.size()));
}

void TestTextColour::figuresDrawTheGuisColour()
{
    const auto [rows, columns] = heatmapData();
    const int cells = checkFigure(heatmapFigure(rows, columns, FigureStyle{}));
    QCOMPARE(cells, static_cast<int>(rows.size()));
    const auto scores = scaleValues();
    const int heads = checkFigure(headHeatmapFigure(scores, 1, static_cast<int>(scores.size()), "heads"));
    QCOMPARE(heads, static_cast<int>(scores.size()));
}

QTEST_MAIN(TestTextColour)
#include "test_textcolour.moc"
