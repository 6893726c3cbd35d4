// The load options (core's typed Device, Dtype, Weights and their one name table, ascviz/model/loadoptions.h) in
// the GUI: combo boxes listing the table's names (item data = the name), their current value, and the command
// line's parsing. No list of names is written in ui/ or app/gui/.
#pragma once
#include "ascviz/model/loadoptions.h"

#include <QComboBox>
#include <QString>

namespace ascviz::ui {

template <class E> QString loadOptionText(E value)
{
    const std::string_view n = loadOptionName(value);
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

// "auto, cpu or cuda." (the command line's help)
template <class E> QString choicesHelp()
{
    return QString::fromStdString(loadOptionChoices<E>()) + QLatin1Char('.');
}

// The value named by `text`; false with `message` = "--device must be auto, cpu or cuda" for another name.
template <class E> bool readLoadOption(const QString& text, const QString& flag, E* out, QString* message)
{
    if (const auto v = ascviz::parseLoadOption<E>(text.toStdString())) {
        *out = *v;
        return true;
    }
    *message = flag + QStringLiteral(" must be ") + QString::fromStdString(loadOptionChoices<E>());
    return false;
}

// The table's names as items (text = data = the name), "auto" left out unless asked for.
template <class E> void addLoadOptionItems(QComboBox* box, bool withAuto)
{
    for (const auto& n : LoadOptionTable<E>::names) {
        if (!withAuto && n.name == "auto")
            continue;
        const QString name = QString::fromUtf8(n.name.data(), static_cast<qsizetype>(n.name.size()));
        box->addItem(name, name);
    }
}

// The value of the current item (its data, else its text); E{} (Auto) for a name the table lacks.
template <class E> E currentLoadOption(const QComboBox* box)
{
    const QString name = box->currentData().isValid() ? box->currentData().toString() : box->currentText();
    return ascviz::parseLoadOption<E>(name.toStdString()).value_or(E{});
}

template <class E> void setCurrentLoadOption(QComboBox* box, E value)
{
    box->setCurrentIndex(std::max(0, box->findData(loadOptionText(value))));
}

} // namespace ascviz::ui
