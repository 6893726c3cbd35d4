// The GUI's view of the language registry (core's LanguageRegistry): choosers, file-name filters and
// defaults. No other place in ui/ names a language.
#pragma once
#include <QString>
#include <QStringList>

class QComboBox;

namespace ascviz {
struct LanguageInfo;
}

namespace ascviz::ui {

// The registry's default language id ("" when the registry cannot be read).
QString defaultLanguageId();
// The descriptor of `id` (nullptr when unknown or the registry cannot be read).
const LanguageInfo* findLanguage(const QString& id);
// The language of a file by its extension ("" when no registered language claims it).
QString languageForFile(const QString& path);
// Fills `box` with every registered language (text = name, data = id) and selects the default.
void fillLanguageBox(QComboBox* box);
// Selects `id` in a box filled by fillLanguageBox; false when it is not there.
bool selectLanguage(QComboBox* box, const QString& id);
// "*.py *.pyw" for every registered language (or one), for file dialogs.
QString extensionPatterns(const QString& id = {});
// The bundled sample corpus of language `id` ("" = the default language's); else the Python sample.
QString sampleCorpusFor(const QString& id);
// ".py" / ".py, .java": for user-facing text.
QString extensionList(const QString& id = {});

} // namespace ascviz::ui
