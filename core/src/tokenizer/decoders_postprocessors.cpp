// Decoders and post-processors of tokenizer.json. Anything not implemented here is rejected with a
// TokenizerError naming it.
#include "component_json.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace ascviz::tok {

namespace {

// ------------------------------------------------------------------------------------- decoders
class ByteLevelDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        const auto& table = ByteLevelTable::get();
        std::string bytes;
        for (const auto& t : tokens) {
            if (auto raw = table.decode(t))
                bytes += *raw;
            else
                bytes += t;
        }
        tokens.assign(1, piece ? bytes : utf8Lossy(bytes));
    }
};

class ReplaceDecoder final : public Decoder {
public:
    Pattern pattern;
    std::string content;
    void decodeChain(std::vector<std::string>& tokens, bool) const override
    {
        for (auto& t : tokens) {
            NormStr ns;
            ns.norm = t;
            ns.align.assign(t.size(), Align{});
            ns.replace(pattern, content);
            t = std::move(ns.norm);
        }
    }
};

class ByteFallbackDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        std::vector<std::string> out;
        std::string pending;
        std::size_t pendingCount = 0;
        const auto flush = [&] {
            if (pendingCount == 0)
                return;
            if (piece || utf8Lossy(pending) == pending) {
                out.push_back(pending);
            } else {
                for (std::size_t i = 0; i < pendingCount; ++i)
                    out.emplace_back("\xEF\xBF\xBD");
            }
            pending.clear();
            pendingCount = 0;
        };
        for (auto& t : tokens) {
            if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' &&
                std::isxdigit(static_cast<unsigned char>(t[3])) && std::isxdigit(static_cast<unsigned char>(t[4]))) {
                pending.push_back(static_cast<char>(std::stoi(t.substr(3, 2), nullptr, 16)));
                ++pendingCount;
                continue;
            }
            flush();
            out.push_back(std::move(t));
        }
        flush();
        tokens = std::move(out);
    }
};

class FuseDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool) const override
    {
        std::string all;
        for (const auto& t : tokens)
            all += t;
        tokens.assign(1, all);
    }
};

class StripDecoder final : public Decoder {
public:
    char32_t content = U' ';
    std::size_t start = 0, stop = 0;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        if (piece)
            return;
        for (auto& t : tokens) {
            auto cs = chars(t);
            std::size_t startCut = 0;
            for (std::size_t i = 0; i < start && i < cs.size(); ++i) {
                if (cs[i] != content)
                    break;
                startCut = i + 1;
            }
            std::size_t stopCut = cs.size();
            for (std::size_t i = 0; i < stop && i < cs.size(); ++i) {
                const std::size_t idx = cs.size() - i - 1;
                if (cs[idx] != content || idx < startCut)
                    break;
                stopCut = idx;
            }
            std::string r;
            for (std::size_t i = startCut; i < stopCut; ++i)
                appendUtf8(r, cs[i]);
            t = std::move(r);
        }
    }
};

class MetaspaceDecoder final : public Decoder {
public:
    char32_t replacement = 0x2581;
    PrependScheme scheme = PrependScheme::Always;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string r;
            for (char32_t c : chars(tokens[i])) {
                if (c == replacement) {
                    if (i == 0 && !piece && scheme != PrependScheme::Never)
                        continue;
                    r.push_back(' ');
                } else {
                    appendUtf8(r, c);
                }
            }
            tokens[i] = std::move(r);
        }
    }
};

// BPEDecoder: the end-of-word suffix becomes a space, except in the last token.
class BpeSuffixDecoder final : public Decoder {
public:
    std::string suffix;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        if (suffix.empty())
            return;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const bool last = !piece && i + 1 == tokens.size();
            std::string r;
            const std::string& t = tokens[i];
            for (std::size_t pos = 0;;) {
                const auto at = t.find(suffix, pos);
                r.append(t, pos, at == std::string::npos ? std::string::npos : at - pos);
                if (at == std::string::npos)
                    break;
                if (!last)
                    r.push_back(' ');
                pos = at + suffix.size();
            }
            tokens[i] = std::move(r);
        }
    }
};

class SequenceDecoder final : public Decoder {
public:
    std::vector<std::unique_ptr<Decoder>> items;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        for (const auto& d : items)
            d->decodeChain(tokens, piece);
    }
};

// ------------------------------------------------------------------------------------- post-processors
void trimByteLevelOffsets(EncodingBuf& e, bool addPrefixSpace)
{
    const char32_t g = ByteLevelTable::get().byteToChar[' '];
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
        const auto cs = chars(e.tokens[i]);
        std::size_t leading = 0, trailing = 0;
        while (leading < cs.size() && (cs[leading] == g || isWhiteSpace(cs[leading])))
            ++leading;
        while (trailing < cs.size() &&
               (cs[cs.size() - 1 - trailing] == g || isWhiteSpace(cs[cs.size() - 1 - trailing])))
            ++trailing;
        auto& off = e.offsets[i];
        if (leading > 0) {
            const bool isFirst = i == 0 || off.first == 0;
            if (isFirst && addPrefixSpace && leading == 1)
                leading = 0;
            off.first = std::min(off.first + leading, off.second);
        }
        if (trailing > 0 && off.second >= trailing)
            off.second = std::max(off.second - trailing, off.first);
    }
}

class ByteLevelProcessor final : public PostProcessor {
public:
    bool trimOffsets = false, addPrefixSpace = false;
    void process(EncodingBuf& e, bool) const override
    {
        if (trimOffsets)
            trimByteLevelOffsets(e, addPrefixSpace);
    }
};

struct SpecialSeq {
    std::vector<int32_t> ids;
    std::vector<std::string> tokens;
};

void appendSpecial(EncodingBuf& out, const SpecialSeq& s)
{
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        out.ids.push_back(s.ids[i]);
        out.tokens.push_back(s.tokens[i]);
        out.offsets.emplace_back(0, 0);
        out.special.push_back(true);
    }
}

void appendSeq(EncodingBuf& out, EncodingBuf& in)
{
    out.ids.insert(out.ids.end(), in.ids.begin(), in.ids.end());
    out.offsets.insert(out.offsets.end(), in.offsets.begin(), in.offsets.end());
    for (auto& t : in.tokens)
        out.tokens.push_back(std::move(t));
    out.special.insert(out.special.end(), in.special.begin(), in.special.end());
}

class TemplateProcessor final : public PostProcessor {
public:
    // nullopt = the sequence A; otherwise a special-token sequence
    std::vector<std::optional<SpecialSeq>> single;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        if (!addSpecialTokens)
            return;
        EncodingBuf out;
        for (const auto& p : single) {
            if (p)
                appendSpecial(out, *p);
            else
                appendSeq(out, e);
        }
        e = std::move(out);
    }
    std::optional<int32_t> leadingSpecial() const override
    {
        if (!single.empty() && single.front() && !single.front()->ids.empty())
            return single.front()->ids.front();
        return std::nullopt;
    }
};

class RobertaProcessor final : public PostProcessor {
public:
    SpecialSeq cls, sep;
    bool trimOffsets = true, addPrefixSpace = true, trim = true;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        if (trim && trimOffsets)
            trimByteLevelOffsets(e, addPrefixSpace);
        if (!addSpecialTokens)
            return;
        EncodingBuf out;
        appendSpecial(out, cls);
        appendSeq(out, e);
        appendSpecial(out, sep);
        e = std::move(out);
    }
    std::optional<int32_t> leadingSpecial() const override { return cls.ids.front(); }
};

class SequenceProcessor final : public PostProcessor {
public:
    std::vector<std::unique_ptr<PostProcessor>> items;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        for (const auto& p : items)
            p->process(e, addSpecialTokens);
    }
    std::optional<int32_t> leadingSpecial() const override
    {
        for (const auto& p : items)
            if (auto id = p->leadingSpecial())
                return id;
        return std::nullopt;
    }
};

SpecialSeq tokenPair(const Json& j, const char* what)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_number_integer())
        throw TokenizerError(std::string("post_processor: malformed '") + what + "'");
    return SpecialSeq{{j[1].get<int32_t>()}, {j[0].get<std::string>()}};
}

} // namespace

std::unique_ptr<Decoder> makeDecoder(const Json& j)
{
    const auto type = typeOf(j, "decoder");
    if (type == "Sequence") {
        auto d = std::make_unique<SequenceDecoder>();
        if (!j.contains("decoders") || !j["decoders"].is_array())
            throw TokenizerError("decoder Sequence without 'decoders'");
        for (const auto& c : j["decoders"])
            d->items.push_back(makeDecoder(c));
        return d;
    }
    if (type == "ByteLevel")
        return std::make_unique<ByteLevelDecoder>();
    if (type == "Replace") {
        auto d = std::make_unique<ReplaceDecoder>();
        d->pattern = Pattern::fromJson(j.value("pattern", Json()), "Replace decoder");
        d->content = getOr<std::string>(j, "content", "");
        return d;
    }
    if (type == "ByteFallback")
        return std::make_unique<ByteFallbackDecoder>();
    if (type == "Fuse")
        return std::make_unique<FuseDecoder>();
    if (type == "Strip") {
        auto d = std::make_unique<StripDecoder>();
        d->content = singleChar(getOr<std::string>(j, "content", " "), "Strip decoder content");
        d->start = getOr<std::size_t>(j, "start", 0);
        d->stop = getOr<std::size_t>(j, "stop", 0);
        return d;
    }
    if (type == "Metaspace") {
        auto d = std::make_unique<MetaspaceDecoder>();
        d->replacement = singleChar(getOr<std::string>(j, "replacement", "\xE2\x96\x81"), "Metaspace replacement");
        d->scheme = parseScheme(j);
        return d;
    }
    if (type == "BPEDecoder") {
        auto d = std::make_unique<BpeSuffixDecoder>();
        d->suffix = getOr<std::string>(j, "suffix", "</w>");
        return d;
    }
    throw TokenizerError("unsupported decoder type '" + type + "'");
}

std::unique_ptr<PostProcessor> makePostProcessor(const Json& j)
{
    const auto type = typeOf(j, "post_processor");
    if (type == "ByteLevel") {
        auto p = std::make_unique<ByteLevelProcessor>();
        p->trimOffsets = getOr<bool>(j, "trim_offsets", true);
        p->addPrefixSpace = getOr<bool>(j, "add_prefix_space", true);
        return p;
    }
    if (type == "TemplateProcessing") {
        auto p = std::make_unique<TemplateProcessor>();
        std::map<std::string, SpecialSeq> specials;
        if (j.contains("special_tokens") && j["special_tokens"].is_object()) {
            for (const auto& [name, v] : j["special_tokens"].items()) {
                SpecialSeq s;
                s.ids = v.value("ids", std::vector<int32_t>{});
                s.tokens = v.value("tokens", std::vector<std::string>{});
                if (s.ids.size() != s.tokens.size())
                    throw TokenizerError("TemplateProcessing: special token '" + name + "' has mismatched ids/tokens");
                specials[name] = std::move(s);
            }
        }
        if (!j.contains("single") || !j["single"].is_array())
            throw TokenizerError("TemplateProcessing without 'single'");
        for (const auto& piece : j["single"]) {
            if (piece.contains("SpecialToken")) {
                const auto id = piece["SpecialToken"].value("id", std::string());
                const auto it = specials.find(id);
                if (it == specials.end())
                    throw TokenizerError("TemplateProcessing: missing special token '" + id + "'");
                p->single.emplace_back(it->second);
            } else if (piece.contains("Sequence")) {
                if (piece["Sequence"].value("id", std::string("A")) != "A")
                    throw TokenizerError("TemplateProcessing: single template refers to sequence B");
                p->single.emplace_back(std::nullopt);
            } else {
                throw TokenizerError("TemplateProcessing: unsupported piece " + piece.dump());
            }
        }
        return p;
    }
    if (type == "RobertaProcessing" || type == "BertProcessing") {
        auto p = std::make_unique<RobertaProcessor>();
        p->cls = tokenPair(j.value("cls", Json()), "cls");
        p->sep = tokenPair(j.value("sep", Json()), "sep");
        p->trim = type == "RobertaProcessing";
        p->trimOffsets = getOr<bool>(j, "trim_offsets", true);
        p->addPrefixSpace = getOr<bool>(j, "add_prefix_space", true);
        return p;
    }
    if (type == "Sequence") {
        auto p = std::make_unique<SequenceProcessor>();
        if (!j.contains("processors") || !j["processors"].is_array())
            throw TokenizerError("post_processor Sequence without 'processors'");
        for (const auto& c : j["processors"])
            p->items.push_back(makePostProcessor(c));
        return p;
    }
    throw TokenizerError("unsupported post_processor type '" + type + "'");
}

} // namespace ascviz::tok
