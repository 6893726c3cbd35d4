#include "pages/interactive/generationbox.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>

#include <algorithm>
#include <initializer_list>
#include <limits>

namespace ascviz::ui {

GenerationBox::GenerationBox(QWidget* parent) : QGroupBox(tr("Generation"), parent)
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    m_maxTokens = new QSpinBox(this);
    m_maxTokens->setRange(1, 4096);
    m_maxTokens->setValue(64);
    m_decoding = new QComboBox(this);
    m_decoding->addItem(tr("Greedy"));
    m_decoding->addItem(tr("Sampling"));
    m_temperature = new QDoubleSpinBox(this);
    m_temperature->setRange(0.05, 5.0);
    m_temperature->setSingleStep(0.1);
    m_temperature->setValue(1.0);
    m_topP = new QDoubleSpinBox(this);
    m_topP->setRange(0.01, 1.0);
    m_topP->setSingleStep(0.05);
    m_topP->setValue(1.0);
    m_topK = new QSpinBox(this);
    m_topK->setRange(0, 100000);
    m_topK->setSpecialValueText(tr("off"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    form->addRow(tr("Max new tokens"), m_maxTokens);
    form->addRow(tr("Decoding"), m_decoding);
    form->addRow(tr("Temperature"), m_temperature);
    form->addRow(tr("Top-p"), m_topP);
    form->addRow(tr("Top-k"), m_topK);
    form->addRow(tr("Seed"), m_seed);
    auto syncSampling = [this] {
        const bool sampling = m_decoding->currentIndex() == 1;
        for (QWidget* x : std::initializer_list<QWidget*>{m_temperature, m_topP, m_topK, m_seed})
            x->setEnabled(sampling);
    };
    connect(m_decoding, &QComboBox::currentIndexChanged, this, syncSampling);
    syncSampling();
}

GenerationOptions GenerationBox::options() const
{
    GenerationOptions g;
    g.maxNewTokens = m_maxTokens->value();
    g.greedy = m_decoding->currentIndex() == 0;
    g.temperature = m_temperature->value();
    g.topP = m_topP->value();
    g.topK = m_topK->value();
    g.seed = uint64_t(m_seed->value());
    return g;
}

void GenerationBox::setOptions(const GenerationOptions& g)
{
    m_maxTokens->setValue(g.maxNewTokens);
    m_decoding->setCurrentIndex(g.greedy ? 0 : 1);
    m_temperature->setValue(g.temperature);
    m_topP->setValue(g.topP);
    m_topK->setValue(g.topK);
    m_seed->setValue(int(std::min<uint64_t>(g.seed, uint64_t(std::numeric_limits<int>::max()))));
}

} // namespace ascviz::ui
