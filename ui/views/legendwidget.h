// The colour legend of the views: the AsC scale red (0) -> white (0.5) -> blue (1) sampled from
// ascColor, the grey n/a swatch, and (per view) the ERROR/MISSING mark or the generated-token style; or, while
// the views show a signed value instead (the attribution of prompt nodes), that scale from -max to +max.
#pragma once
#include <QStringList>
#include <QWidget>

#include <functional>

namespace ascviz::ui {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Sequence, Ast };
    explicit LegendWidget(Mode mode, QWidget* parent = nullptr);
    void setMode(Mode m);
    Mode mode() const { return m_mode; }
    // A signed scale in place of the AsC scale: `color` of values in [-1, 1], labelled -maxAbs … +maxAbs, and a
    // swatch `none` for what it does not cover. clearSignedScale: the AsC scale again.
    void setSignedScale(const QString& title, std::function<QColor(double)> color, double maxAbs, const QColor& none,
                        const QString& noneText);
    void clearSignedScale();
    // A scale from `lo` to `hi` (e.g. the commitment layer 0 … L) in place of the AsC scale: `color` of t in [0, 1]
    // (t = 0 at lo), labelled lo, the middle and hi; cleared by clearSignedScale.
    void setRangeScale(const QString& title, std::function<QColor(double)> color, double lo, double hi,
                       const QColor& none, const QString& noneText);
    // The labels under the scale shown in place of the AsC one (empty when none is).
    QStringList scaleLabels() const;
    // What the AsC scale's values are when not the final layer's (e.g. "layer 3 of 8"), shown after the scale's
    // name; empty: nothing.
    void setValueTitle(const QString& what);
    // Whether the legend explains the selection mark (off where nothing can be selected: a participant's trial).
    void setShowsSelection(bool on);
    // The swatches' captions after the scale, in order (what paintEvent draws).
    QStringList swatchCaptions() const;
    QString valueTitle() const { return m_valueTitle; }
    bool showsSignedScale() const { return bool(m_signed); }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    void paintSigned(QPainter& p);

    Mode m_mode;
    std::function<QColor(double)> m_signed;
    QString m_signedTitle, m_noneText, m_valueTitle;
    bool m_showsSelection = true;
    double m_maxAbs = 0;
    bool m_range = false; // setRangeScale: labels lo … hi instead of −maxAbs … +maxAbs
    double m_lo = 0, m_hi = 0;
    QColor m_none;
};

} // namespace ascviz::ui
