// The Interactive tab's generation settings (max new tokens, greedy or sampling with temperature, top-p, top-k and
// seed) as one group box: the page asks it for GenerationOptions and puts a session's back (issue 40: the page's
// widgets split by responsibility).
#pragma once
#include "common/analysis.h" // GenerationOptions

#include <QGroupBox>

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace ascviz::ui {

class GenerationBox : public QGroupBox {
    Q_OBJECT
public:
    explicit GenerationBox(QWidget* parent = nullptr);

    GenerationOptions options() const;
    void setOptions(const GenerationOptions& g);

    QSpinBox* maxNewTokensBox() const { return m_maxTokens; }
    QComboBox* decodingBox() const { return m_decoding; } // 0 greedy, 1 sampling

private:
    QSpinBox* m_maxTokens;
    QComboBox* m_decoding;
    QDoubleSpinBox* m_temperature;
    QDoubleSpinBox* m_topP;
    QSpinBox* m_topK;
    QSpinBox* m_seed;
};

} // namespace ascviz::ui
