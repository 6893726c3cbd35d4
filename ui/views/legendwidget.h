// The colour legend of the views: the AsC scale red (0) -> white (0.5) -> blue (1) sampled from
// ascColor, the grey n/a swatch, and (per view) the ERROR/MISSING mark or the generated-token style.
#pragma once
#include <QWidget>

namespace ascviz::ui {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Sequence, Ast };
    explicit LegendWidget(Mode mode, QWidget* parent = nullptr);
    void setMode(Mode m);
    Mode mode() const { return m_mode; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    Mode m_mode;
};

} // namespace ascviz::ui
