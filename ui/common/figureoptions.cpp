// The figure options dialog of the GUI's paper exports (figureoptions.h).
#include "common/figureoptions.h"

#include "common/textpos.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>

#include <algorithm>

namespace ascviz::ui {

FigureExportOptions savedFigureExportOptions()
{
    QSettings s;
    s.beginGroup(QStringLiteral("figure"));
    FigureExportOptions o;
    const double mm =
        std::clamp(s.value(QStringLiteral("widthMm"), 85.0).toDouble(), kMinFigureWidthMm, kMaxFigureWidthMm);
    o.style.widthPt = mm * kPointsPerMm;
    o.style.fontPt = std::clamp(s.value(QStringLiteral("fontPt"), 8.0).toDouble(), kMinFigureFontPt, 72.0);
    o.style.title = s.value(QStringLiteral("title"), true).toBool();
    try {
        o.style.legend =
            parseLegendPlacement(toUtf8(s.value(QStringLiteral("legend"), QStringLiteral("right")).toString()));
    } catch (const std::exception&) {
        o.style.legend = LegendPlacement::Right;
    }
    o.warning = s.value(QStringLiteral("warning"), true).toBool();
    return o;
}

void saveFigureExportOptions(const FigureExportOptions& o)
{
    QSettings s;
    s.beginGroup(QStringLiteral("figure"));
    s.setValue(QStringLiteral("widthMm"), o.style.widthPt / kPointsPerMm);
    s.setValue(QStringLiteral("fontPt"), o.style.fontPt);
    s.setValue(QStringLiteral("title"), o.style.title);
    s.setValue(QStringLiteral("legend"), toQString(toString(o.style.legend)));
    s.setValue(QStringLiteral("warning"), o.warning);
}

FigureOptionsDialog::FigureOptionsDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Figure options"));
    auto* form = new QFormLayout(this);
    m_width = new QDoubleSpinBox(this);
    m_width->setRange(kMinFigureWidthMm, kMaxFigureWidthMm);
    m_width->setDecimals(1);
    m_width->setSuffix(tr(" mm"));
    m_width->setToolTip(tr("The page width: 85 mm one column, 170–178 mm two, 40 mm half a column"));
    m_font = new QDoubleSpinBox(this);
    m_font->setRange(kMinFigureFontPt, 72.0);
    m_font->setDecimals(1);
    m_font->setSingleStep(0.5);
    m_font->setSuffix(tr(" pt"));
    m_font->setToolTip(tr("The label font; tick labels and captions 0.85 × it, never below 6 pt"));
    m_title = new QCheckBox(tr("Title line"), this);
    m_legend = new QComboBox(this);
    for (LegendPlacement p : {LegendPlacement::Right, LegendPlacement::Bottom, LegendPlacement::None})
        m_legend->addItem(toQString(toString(p)), toQString(toString(p)));
    m_legend->setToolTip(tr("Where the legend goes; a right legend that would squeeze the plot moves below"));
    m_warning = new QCheckBox(tr("Caption names the settings the runs differ in"), this);
    form->addRow(tr("Width"), m_width);
    form->addRow(tr("Font"), m_font);
    form->addRow(QString(), m_title);
    form->addRow(tr("Legend"), m_legend);
    form->addRow(QString(), m_warning);
    auto* note = new QLabel(tr("SVG or PDF by the file name's extension. The same options as the command line's "
                               "--width-mm, --font-pt, --no-title and --legend."),
                            this);
    note->setWordWrap(true);
    form->addRow(note);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
    setOptions(FigureExportOptions{});
}

void FigureOptionsDialog::setOptions(const FigureExportOptions& o)
{
    m_width->setValue(o.style.widthPt / kPointsPerMm);
    m_font->setValue(o.style.fontPt);
    m_title->setChecked(o.style.title);
    m_legend->setCurrentIndex(std::max(0, m_legend->findData(toQString(toString(o.style.legend)))));
    m_warning->setChecked(o.warning);
}

FigureExportOptions FigureOptionsDialog::options() const
{
    FigureExportOptions o;
    o.style.widthPt = m_width->value() * kPointsPerMm;
    o.style.fontPt = m_font->value();
    o.style.title = m_title->isChecked();
    o.style.legend = parseLegendPlacement(toUtf8(m_legend->currentData().toString()));
    o.warning = m_warning->isChecked();
    return o;
}

} // namespace ascviz::ui
