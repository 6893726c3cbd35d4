// Which settings differ between compared runs, and unique labels (compare.h).
#include "ascviz/results/compare.h"

#include <algorithm>
#include <functional>
#include <map>

namespace ascviz {
namespace {

struct Setting {
    const char* name;
    std::function<std::string(const CorpusStats&)> value; // what a label shows
    std::function<std::string(const CorpusStats&)> key;   // what is compared
};

std::string shortFingerprint(const std::string& f)
{
    return f.substr(0, 8);
}

std::string corpusKey(const CorpusStats& s)
{
    return s.run.corpusFingerprint.empty() ? "path:" + s.run.corpusPath : s.run.corpusFingerprint;
}

std::string corpusValue(const CorpusStats& s)
{
    return s.run.corpusFingerprint.empty() ? s.run.corpusPath : shortFingerprint(s.run.corpusFingerprint);
}

std::string categoriesValue(const CorpusStats& s)
{
    // "resources/languages/python/categories.json" -> "python/categories.json"
    std::string t = s.categoryTable;
    const std::string prefix = "resources/languages/";
    for (auto at = t.find(prefix); at != std::string::npos; at = t.find(prefix))
        t.erase(at, prefix.size());
    return t;
}

std::string orUnknown(std::string v)
{
    return v.empty() ? std::string("unknown") : v;
}

const std::vector<Setting>& settings()
{
    static const std::vector<Setting> all = {
        {"θ", [](const CorpusStats& s) { return toString(s.run.aggregation); },
         [](const CorpusStats& s) { return toString(s.run.aggregation); }},
        {"θ scope", [](const CorpusStats& s) { return toString(s.run.aggregationScope); },
         [](const CorpusStats& s) { return toString(s.run.aggregationScope); }},
        {"dtype", [](const CorpusStats& s) { return orUnknown(s.run.dtype); },
         [](const CorpusStats& s) { return s.run.dtype; }},
        {"categories", categoriesValue, [](const CorpusStats& s) { return s.categoryTable; }},
        {"corpus", corpusValue, corpusKey},
    };
    return all;
}

std::string join(const std::vector<std::string>& parts, const char* sep)
{
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : sep) + p;
    return out;
}

// The labels that occur more than once.
std::map<std::string, int> uses(const std::vector<std::string>& labels)
{
    std::map<std::string, int> n;
    for (const auto& l : labels)
        ++n[l];
    return n;
}

} // namespace

RunComparison compareRuns(const std::vector<ComparedRun>& runs)
{
    RunComparison c;
    std::vector<std::vector<std::string>> parts(runs.size());
    for (const auto& setting : settings()) {
        std::vector<std::string> keys, values;
        for (const auto& r : runs) {
            keys.push_back(setting.key(*r.stats));
            values.push_back(setting.value(*r.stats));
        }
        if (std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return k == keys.front(); }))
            continue;
        c.differing.push_back({setting.name, values});
        if (std::string(setting.name) == "corpus")
            c.differentCorpus = true;
        for (std::size_t i = 0; i < runs.size(); ++i)
            parts[i].push_back(std::string(setting.name) + "=" + values[i]);
    }
    for (std::size_t i = 0; i < runs.size(); ++i)
        c.labels.push_back(runs[i].stats->run.modelName +
                           (parts[i].empty() ? std::string() : " (" + join(parts[i], ", ") + ")"));
    // Runs alike in every setting (a run opened twice, two runs of one model): their sources, then positions.
    auto n = uses(c.labels);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (n[c.labels[i]] > 1 && !runs[i].source.empty())
            c.labels[i] += " [" + runs[i].source + "]";
    n = uses(c.labels);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (n[c.labels[i]] > 1)
            c.labels[i] += " #" + std::to_string(i + 1);

    std::vector<std::string> said;
    for (const auto& d : c.differing) {
        std::vector<std::string> distinct;
        for (const auto& v : d.values)
            if (std::find(distinct.begin(), distinct.end(), v) == distinct.end())
                distinct.push_back(v);
        said.push_back(d.name + " (" + join(distinct, " vs ") + ")");
    }
    if (!said.empty())
        c.warning = "the compared runs differ in " + join(said, ", ") +
                    (c.differentCorpus ? ": their values come from different corpora"
                                       : ": each run is labelled with its setting; a difference in their values "
                                         "is not the model's alone");
    return c;
}

} // namespace ascviz
