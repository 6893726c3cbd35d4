// The partial files of `analyze heads` runs tallied together (headpartial.h: tallyHeadPartials).
#include "ascviz/attention/codesyntax.h"
#include "ascviz/attention/headpartial.h"
#include "ascviz/base/error.h"
#include "ascviz/results/shards.h"
#include "ascviz/syntax/language.h"

#include <set>

namespace ascviz {

HeadPartialsTally tallyHeadPartials(const std::vector<std::string>& files)
{
    if (files.empty())
        throw InputError("no partial file to tally");
    std::string list;
    for (const auto& f : files)
        list += (list.empty() ? "" : ",") + f;
    HeadPartialsTally out;
    std::set<std::string> ids, shards;
    for (const auto& f : files) {
        const auto head = readHeadPartial(f, nullptr).settings;
        if (!out.tally) {
            out.settings = head;
            out.tally.emplace(head.layers, head.maxK,
                              LanguageRegistry::instance().get(head.language).baselineKeywords());
        } else if (head.model != out.settings.model || head.metric != out.settings.metric ||
                   head.corpus != out.settings.corpus || head.layers != out.settings.layers ||
                   head.maxK != out.settings.maxK || head.relations != out.settings.relations) {
            throw InputError(f + " is a run of other settings than " + list +
                                 "'s first file (model, metric, corpus, layers, max k or relations differ)",
                             ErrorContext(f));
        }
        const auto got = readHeadPartial(f, &*out.tally);
        if (!got.warning.empty())
            out.warnings.push_back(got.warning);
        if (got.plannedTexts > 0 && static_cast<int>(got.ids.size()) < got.plannedTexts)
            out.warnings.push_back(f + " holds " + std::to_string(got.ids.size()) + " of the " +
                                   std::to_string(got.plannedTexts) +
                                   " texts its run set out to analyze (an interrupted run: resume it to finish)");
        if (!head.shard.empty() && !shards.insert(head.shard).second)
            throw InputError(f + ": shard " + head.shard + " is given twice", ErrorContext(f));
        for (const auto& id : got.ids)
            if (!ids.insert(id).second)
                throw InputError(f + ": text '" + id + "' is in two partial files", ErrorContext(f));
    }
    // Shards "I/N": all N of them make the corpus; fewer give a report over part of it.
    if (shards.empty())
        return out;
    int count = 0;
    std::set<int> given;
    for (const auto& text : shards) {
        ShardSpec sh;
        try {
            sh = parseShard(text);
        } catch (const InputError& e) {
            throw InputError(list + ": a partial file's shard: " + e.what());
        }
        if (count && sh.count != count)
            throw InputError(list + ": the partial files are shards of different splits (" + std::to_string(count) +
                             " and " + std::to_string(sh.count) + " shards)");
        count = sh.count;
        given.insert(sh.index);
    }
    if (static_cast<int>(given.size()) < count) {
        std::string missing;
        int listed = 0;
        for (int i = 0; i < count && listed < 10; ++i)
            if (!given.count(i))
                missing += (listed++ ? ", " : "") + std::to_string(i);
        const int left = count - static_cast<int>(given.size()) - listed;
        out.warnings.push_back("the partial files hold " + std::to_string(given.size()) + " of " +
                               std::to_string(count) + " shards (missing: " + missing +
                               (left > 0 ? " and " + std::to_string(left) + " more" : std::string()) +
                               "): the report covers part of the corpus only");
    }
    return out;
}

HeadReport headPartialsReport(HeadPartialsTally& tallied, const std::vector<int>& topK, int minCount)
{
    HeadReport report = tallied.tally->report(topK, minCount);
    report.warnings = std::move(tallied.warnings);
    const HeadRunSettings& s = tallied.settings;
    report.model = s.model;
    report.language = s.language;
    report.metric = s.metric;
    report.relationSet = s.relations;
    if (s.relations == "codesyntax") {
        const LanguageInfo& info = LanguageRegistry::instance().get(s.language);
        report.table6 = CodeSyntaxMapping::forLanguage(info.id, info.folder).table6();
    }
    return report;
}

} // namespace ascviz
