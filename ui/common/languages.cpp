#include "common/languages.h"

#include "common/textpos.h"

#include "ascviz/base/resources.h"
#include "ascviz/syntax/language.h"

#include <QComboBox>
#include <QFileInfo>

namespace ascviz::ui {

namespace {
const LanguageRegistry* registry()
{
    try {
        return &LanguageRegistry::instance();
    } catch (const std::exception&) {
        return nullptr;
    }
}

std::vector<std::string> extensionsOf(const QString& id)
{
    const LanguageRegistry* r = registry();
    if (!r)
        return {};
    if (id.isEmpty())
        return r->allExtensions();
    const LanguageInfo* l = r->find(toUtf8(id));
    return l ? l->extensions : std::vector<std::string>{};
}
} // namespace

QString defaultLanguageId()
{
    const LanguageRegistry* r = registry();
    if (!r || r->languages().empty())
        return {};
    return toQString(r->defaultLanguage().id);
}

const LanguageInfo* findLanguage(const QString& id)
{
    const LanguageRegistry* r = registry();
    return r ? r->find(toUtf8(id)) : nullptr;
}

QString sampleCorpusFor(const QString& id)
{
    const LanguageRegistry* r = registry();
    const LanguageInfo* l = !r ? nullptr : id.isEmpty() ? &r->defaultLanguage() : r->find(toUtf8(id));
    if (l && !l->sampleCorpus.empty())
        return toQString(l->sampleCorpus.string());
    try {
        return toQString(sampleCorpus().string());
    } catch (const std::exception&) {
        return {};
    }
}

QString languageForFile(const QString& path)
{
    const LanguageRegistry* r = registry();
    const LanguageInfo* l = r ? r->forFile(std::filesystem::path(toUtf8(QFileInfo(path).fileName()))) : nullptr;
    return l ? toQString(l->id) : QString();
}

void fillLanguageBox(QComboBox* box)
{
    box->clear();
    if (const LanguageRegistry* r = registry())
        for (const LanguageInfo& l : r->languages())
            box->addItem(toQString(l.name), toQString(l.id));
    selectLanguage(box, defaultLanguageId());
}

bool selectLanguage(QComboBox* box, const QString& id)
{
    const int i = box->findData(id);
    if (i < 0)
        return false;
    box->setCurrentIndex(i);
    return true;
}

QString extensionPatterns(const QString& id)
{
    QStringList out;
    for (const auto& e : extensionsOf(id))
        out << QStringLiteral("*") + toQString(e);
    return out.join(QLatin1Char(' '));
}

QString extensionList(const QString& id)
{
    QStringList out;
    for (const auto& e : extensionsOf(id))
        out << toQString(e);
    return out.join(QStringLiteral(", "));
}

} // namespace ascviz::ui
