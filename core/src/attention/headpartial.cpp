// The partial file of `analyze heads` (JSON Lines): settings, then one record per text.
#include "ascviz/attention/headpartial.h"

#include "ascviz/base/error.h"

#include <cstdint>
#include <fstream>

namespace ascviz {
namespace {

constexpr const char* kKind = "ascviz-heads-partial";

std::string hex(const std::vector<uint8_t>& v)
{
    static const char* d = "0123456789abcdef";
    std::string s;
    s.reserve(v.size() * 2);
    for (uint8_t b : v) {
        s += d[b >> 4];
        s += d[b & 15];
    }
    return s;
}

int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

// An integer of a JSON value: a JSON integer within int's range (a float such as 5e19 would be undefined
// behaviour to convert); InputError naming `what` otherwise.
int intOf(const nlohmann::json& v, const std::string& where, const char* what)
{
    if (v.is_number_integer()) {
        const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(INT32_MAX)
                                                 : v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX;
        if (fits)
            return static_cast<int>(v.get<int64_t>());
    }
    throw InputError(where + ": " + what + " must be an integer within 32 bits");
}

} // namespace

nlohmann::json headRunSettingsJson(const HeadRunSettings& s)
{
    return {{"kind", kKind},          {"version", 1},       {"model", s.model},
            {"language", s.language}, {"metric", s.metric}, {"corpus", s.corpus},
            {"layers", s.layers},     {"max_k", s.maxK},    {"shard", s.shard}};
}

nlohmann::json textRecordJson(const TextRecord& t)
{
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& e : t.edges) {
        nlohmann::json hits = nlohmann::json::array();
        for (const auto& h : e.hits) {
            if (h.isKeyword)
                hits.push_back(h.keyword);
            else
                hits.push_back(h.offset);
        }
        edges.push_back({{"type", e.type}, {"offset", e.offset}, {"ranks", hex(e.ranks)}, {"hits", hits}});
    }
    return {{"id", t.id}, {"edges", edges}, {"outside", t.outside}};
}

TextRecord textRecordFromJson(const nlohmann::json& j, const std::string& where)
{
    try {
        TextRecord t;
        t.id = j.at("id").get<std::string>();
        for (const auto& e : j.at("edges")) {
            EdgeRecord x;
            x.type = e.at("type").get<std::string>();
            x.offset = intOf(e.at("offset"), where, "offset");
            const std::string ranks = e.at("ranks").get<std::string>();
            if (ranks.size() % 2)
                throw InputError(where + ": ranks of odd length");
            for (std::size_t i = 0; i < ranks.size(); i += 2) {
                const int hi = nibble(ranks[i]), lo = nibble(ranks[i + 1]);
                if (hi < 0 || lo < 0)
                    throw InputError(where + ": ranks are not lower-case hex");
                x.ranks.push_back(static_cast<uint8_t>(hi * 16 + lo));
            }
            for (const auto& h : e.at("hits")) {
                BaselineChoice c;
                if (h.is_string()) {
                    c.isKeyword = true;
                    c.keyword = h.get<std::string>();
                } else {
                    c.offset = intOf(h, where, "an offset hit");
                }
                x.hits.push_back(std::move(c));
            }
            t.edges.push_back(std::move(x));
        }
        for (const auto& [type, n] : j.at("outside").items())
            t.outside[type] = intOf(n, where, "an outside count");
        return t;
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": not a text record of analyze heads (" + e.what() + ")");
    }
}

PartialContents readHeadPartial(const std::filesystem::path& file, HeadTally* tally)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError("cannot read the partial file " + file.string(), ErrorContext(file.string()));
    return readHeadPartial(in, file, tally);
}

PartialContents readHeadPartial(std::istream& in, const std::filesystem::path& file, HeadTally* tally)
{
    PartialContents out;
    std::string line;
    std::size_t lineNo = 0;
    bool header = false;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        const std::string where = file.string() + ":" + std::to_string(lineNo);
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded())
            throw InputError(where + ": not JSON (a run killed while writing leaves a cut last line: delete it "
                                     "and resume)",
                             ErrorContext(file.string(), {}, lineNo));
        if (!header) {
            if (!j.is_object() || j.value("kind", "") != kKind)
                throw InputError(where + ": not a partial file of analyze heads (no header line)",
                                 ErrorContext(file.string(), {}, lineNo));
            try {
                out.settings = {j.at("model"),
                                j.at("language"),
                                j.at("metric"),
                                j.at("corpus"),
                                intOf(j.at("layers"), where, "layers"),
                                intOf(j.at("max_k"), where, "max_k"),
                                j.at("shard")};
            } catch (const nlohmann::json::exception& e) {
                throw InputError(where + ": a header without " + e.what(), ErrorContext(file.string(), {}, lineNo));
            }
            if (out.settings.layers < 1 || out.settings.layers > 4096 || out.settings.maxK < 1 ||
                out.settings.maxK >= HeadScorer::kMiss)
                throw InputError(where + ": layers must be 1..4096 and max_k 1..254",
                                 ErrorContext(file.string(), {}, lineNo));
            header = true;
            continue;
        }
        TextRecord t = textRecordFromJson(j, where);
        if (!out.ids.insert(t.id).second)
            throw InputError(where + ": text '" + t.id + "' is there twice", ErrorContext(file.string(), {}, lineNo));
        if (tally)
            tally->add(t);
    }
    if (!header)
        throw InputError(file.string() + " is empty: not a partial file of analyze heads", ErrorContext(file.string()));
    return out;
}

} // namespace ascviz
