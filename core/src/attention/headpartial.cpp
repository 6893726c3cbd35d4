// The stored runs of `analyze heads` (headpartial.h): the heads run database, and the JSON Lines partial files of
// earlier builds (read-only).
#include "ascviz/attention/headpartial.h"

#include "ascviz/base/error.h"
#include "ascviz/results/headsdb.h"

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

std::map<std::string, std::string> headRunMeta(const HeadRunSettings& s, int plannedTexts)
{
    std::map<std::string, std::string> m = {{"model", s.model},
                                            {"language", s.language},
                                            {"metric", s.metric},
                                            {"corpus", s.corpus},
                                            {"layers", std::to_string(s.layers)},
                                            {"max_k", std::to_string(s.maxK)},
                                            {"shard", s.shard},
                                            {"relations", s.relations}};
    if (plannedTexts > 0)
        m["planned"] = std::to_string(plannedTexts);
    return m;
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
            if (x.offset < 1)
                throw InputError(where + ": an edge's offset must be 1 or more (its head is before it)");
            const std::string ranks = e.at("ranks").get<std::string>();
            if (ranks.size() % 2)
                throw InputError(where + ": ranks of odd length");
            if (ranks.size() / 2 > HeadTally::kMaxHeadCells)
                throw InputError(where + ": an edge with " + std::to_string(ranks.size() / 2) +
                                 " ranks, more than the " + std::to_string(HeadTally::kMaxHeadCells) +
                                 " (layers x heads) a tally takes");
            x.ranks.reserve(ranks.size() / 2);
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
                    if (c.offset < 1)
                        throw InputError(where + ": an offset hit must be 1 or more");
                }
                x.hits.push_back(std::move(c));
            }
            t.edges.push_back(std::move(x));
        }
        for (const auto& [type, n] : j.at("outside").items()) {
            t.outside[type] = intOf(n, where, "an outside count");
            if (t.outside[type] < 0)
                throw InputError(where + ": the outside count of '" + type + "' is negative");
        }
        return t;
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": not a text record of analyze heads (" + e.what() + ")");
    }
}

namespace {

// The settings and records of a heads run database.
PartialContents readHeadRunDb(const std::filesystem::path& file, HeadTally* tally)
{
    const HeadsDb db = HeadsDb::open(file);
    auto m = db.meta();
    const std::string name = file.string();
    auto number = [&](const char* key) {
        const std::string& v = m[key];
        std::size_t used = 0;
        int n = -1;
        try {
            n = std::stoi(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (v.empty() || used != v.size())
            throw InputError(name + ": the run's setting " + key + " is '" + v + "', not a whole number",
                             ErrorContext(name));
        return n;
    };
    for (const char* key : {"model", "language", "metric", "corpus", "layers", "max_k"})
        if (!m.count(key))
            throw InputError(name + ": a heads run database without the setting " + key, ErrorContext(name));
    PartialContents out;
    out.database = true;
    out.settings = {m["model"],       m["language"],   m["metric"], m["corpus"],
                    number("layers"), number("max_k"), m["shard"],  m.count("relations") ? m["relations"] : "fields"};
    if (out.settings.layers < 1 || out.settings.layers > 4096 || out.settings.maxK < 1 ||
        out.settings.maxK >= HeadScorer::kMiss)
        throw InputError(name + ": layers must be 1..4096 and max_k 1..254", ErrorContext(name));
    if (m.count("planned")) {
        out.plannedTexts = number("planned");
        if (out.plannedTexts < 0)
            throw InputError(name + ": planned must not be negative", ErrorContext(name));
    }
    db.forEachRecord([&](const std::string& id, const std::string& record) {
        const std::string where = name + ": text '" + id + "'";
        const auto j = nlohmann::json::parse(record, nullptr, false);
        if (j.is_discarded())
            throw InputError(where + ": its record is not JSON", ErrorContext(name));
        TextRecord t = textRecordFromJson(j, where);
        if (t.id != id)
            throw InputError(where + ": its record is of text '" + t.id + "'", ErrorContext(name));
        out.ids.insert(t.id);
        if (tally) {
            try {
                tally->add(t);
            } catch (const InputError& e) {
                throw InputError(where + ": " + e.what(), ErrorContext(name));
            }
        }
    });
    return out;
}

} // namespace

PartialContents readHeadPartial(const std::filesystem::path& file, HeadTally* tally)
{
    if (HeadsDb::isHeadsDb(file))
        return readHeadRunDb(file, tally);
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError("cannot read the partial file " + file.string(), ErrorContext(file.string()));
    return readHeadPartial(in, file, tally);
}

PartialContents readHeadPartial(std::istream& in, const std::filesystem::path& file, HeadTally* tally,
                                std::size_t maxLineBytes)
{
    PartialContents out;
    std::string line;
    std::size_t lineNo = 0;
    bool header = false, newline = true;
    std::uintmax_t offset = 0; // bytes read before `line`
    std::streambuf* buf = in.rdbuf();
    // One line, without its '\n', of at most maxLineBytes (a file with no line breaks, /dev/zero, must
    // not grow a string without bound); false at the end of the input.
    auto nextLine = [&] {
        line.clear();
        newline = false;
        for (;;) {
            const int c = buf ? buf->sbumpc() : std::char_traits<char>::eof();
            if (c == std::char_traits<char>::eof())
                return !line.empty();
            if (c == '\n') {
                newline = true;
                return true;
            }
            if (line.size() >= maxLineBytes)
                throw InputError(file.string() + ":" + std::to_string(lineNo + 1) + ": a line longer than " +
                                     std::to_string(maxLineBytes) +
                                     " bytes, the limit of a partial file of analyze heads",
                                 ErrorContext(file.string(), {}, lineNo + 1));
            line.push_back(static_cast<char>(c));
        }
    };
    for (; nextLine(); offset += line.size() + (newline ? 1 : 0)) {
        ++lineNo;
        if (line.empty())
            continue;
        out.endsWithNewline = newline;
        const std::string where = file.string() + ":" + std::to_string(lineNo);
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded()) {
            // A record is written with its line break in one write: a last line without one is a record a
            // killed run (or a full disk) cut short. It alone is dropped; a broken line before the end is not
            // something a run leaves.
            if (!newline && header) {
                out.tornLine = lineNo;
                out.endsWithNewline = true; // the line before it ended with its line break
                out.warning = where + ": the last line is cut short (a run killed while writing it, or a full " +
                              "disk): that one text's record is dropped (a resumed run analyzes the text again)";
                break;
            }
            throw InputError(where + ": not JSON", ErrorContext(file.string(), {}, lineNo));
        }
        if (!header) {
            // The header is told by its "kind"; any other value (or type) there is not ours.
            const auto kind = j.is_object() ? j.find("kind") : j.end();
            if (kind == j.end() || !kind->is_string() || kind->get_ref<const std::string&>() != kKind)
                throw InputError(where + ": not a partial file of analyze heads (no header line)",
                                 ErrorContext(file.string(), {}, lineNo));
            try {
                out.settings = {j.at("model"),
                                j.at("language"),
                                j.at("metric"),
                                j.at("corpus"),
                                intOf(j.at("layers"), where, "layers"),
                                intOf(j.at("max_k"), where, "max_k"),
                                j.at("shard"),
                                j.value("relations", std::string("fields"))};
            } catch (const nlohmann::json::exception& e) {
                throw InputError(where + ": a header without " + e.what(), ErrorContext(file.string(), {}, lineNo));
            }
            if (out.settings.layers < 1 || out.settings.layers > 4096 || out.settings.maxK < 1 ||
                out.settings.maxK >= HeadScorer::kMiss)
                throw InputError(where + ": layers must be 1..4096 and max_k 1..254",
                                 ErrorContext(file.string(), {}, lineNo));
            if (j.contains("texts")) {
                out.plannedTexts = intOf(j.at("texts"), where, "texts");
                if (out.plannedTexts < 0)
                    throw InputError(where + ": texts must not be negative", ErrorContext(file.string(), {}, lineNo));
            }
            header = true;
            continue;
        }
        TextRecord t = textRecordFromJson(j, where);
        if (!out.ids.insert(t.id).second)
            throw InputError(where + ": text '" + t.id + "' is there twice", ErrorContext(file.string(), {}, lineNo));
        if (tally) {
            try {
                tally->add(t);
            } catch (const InputError& e) {
                throw InputError(where + ": " + e.what(), ErrorContext(file.string(), {}, lineNo));
            }
        }
    }
    if (!header)
        throw InputError(file.string() + " is empty: not a partial file of analyze heads", ErrorContext(file.string()));
    out.completeBytes = offset;
    return out;
}

} // namespace ascviz
