// The BPE model of tokenizer.json: vocabulary, ranked merges (priority-queue merge loop, O(n log n) per
// pre-token), unk / fuse_unk / byte_fallback / ignore_merges / subword prefix & suffix, and a sharded,
// bounded, thread-safe cache of pre-token -> pieces.
#include "internal.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <queue>

namespace ascviz::tok {

struct BpeModel::Cache {
    static constexpr std::size_t kShards = 64;
    static constexpr std::size_t kMaxWordBytes = 256; // as tokenizers' MAX_LENGTH
    struct Shard {
        std::mutex mutex;
        std::unordered_map<std::string, std::vector<Piece>, TransparentHash, std::equal_to<>> map;
    };
    std::array<Shard, kShards> shards;
    std::size_t perShard = 0;

    Shard& shardFor(std::string_view w) { return shards[TransparentHash{}(w) % kShards]; }
};

namespace {
std::string optString(const Json& j, const char* key)
{
    if (!j.contains(key) || j[key].is_null())
        return {};
    if (!j[key].is_string())
        throw TokenizerError(std::string("BPE model: '") + key + "' must be a string");
    return j[key].get<std::string>();
}
} // namespace

// The largest vocabulary id accepted: ids index a table (id → token), so an id of two billion in a
// 50-byte tokenizer.json would allocate 64 GB (a fuzz finding). Real vocabularies stay far below (~260k).
constexpr int64_t kMaxVocabId = (int64_t(1) << 24) - 1;

BpeModel::BpeModel(const Json& model, bool byteLevel, bool cacheEnabled, std::size_t cacheCapacity)
    : m_byteLevel(byteLevel)
{
    const auto type = model.value("type", std::string("BPE"));
    if (type != "BPE")
        throw TokenizerError("unsupported model type '" + type + "' (only BPE is implemented)");
    // BPE dropout skips merges at random (a training-time regularisation): encodings would not be
    // reproducible, so only null (or 0, which tokenizers treats as no dropout) is accepted.
    if (model.contains("dropout") && !model["dropout"].is_null() &&
        (!model["dropout"].is_number() || model["dropout"].get<double>() != 0.0))
        throw TokenizerError("BPE model: 'dropout' " + model["dropout"].dump() +
                             " is not supported (random merges; only null is)");
    if (!model.contains("vocab") || !model["vocab"].is_object())
        throw TokenizerError("BPE model without a 'vocab' object");
    if (!model.contains("merges") || !model["merges"].is_array())
        throw TokenizerError("BPE model without a 'merges' array");

    const auto& table = ByteLevelTable::get();
    const auto& vocab = model["vocab"];
    m_vocab.reserve(vocab.size());
    m_keys.reserve(vocab.size());
    int32_t maxId = -1;
    for (const auto& [tok, idj] : vocab.items()) {
        if (!idj.is_number_integer())
            throw TokenizerError("BPE vocab: id of '" + tok + "' is not an integer");
        if (idj.is_number_unsigned() ? idj.get<uint64_t>() > static_cast<uint64_t>(kMaxVocabId)
                                     : idj.get<int64_t>() > kMaxVocabId)
            throw TokenizerError("BPE vocab: id " + idj.dump() + " of '" + tok + "' is beyond " +
                                 std::to_string(kMaxVocabId) + " (ids index a table)");
        if (!idj.is_number_unsigned() && idj.get<int64_t>() < 0)
            throw TokenizerError("BPE vocab: negative id for '" + tok + "'");
        const auto id = static_cast<int32_t>(idj.get<int64_t>());
        m_vocab.emplace(tok, id);
        maxId = std::max(maxId, id);
    }
    m_idToToken.assign(static_cast<std::size_t>(maxId + 1), std::string());
    for (const auto& [tok, id] : m_vocab) {
        m_idToToken[static_cast<std::size_t>(id)] = tok;
        if (m_byteLevel) {
            if (auto raw = table.decode(tok))
                m_keys.emplace(std::move(*raw), id);
        } else {
            m_keys.emplace(tok, id);
        }
    }
    m_byteIds.fill(-1);
    for (int b = 0; b < 256; ++b) {
        const std::string key(1, static_cast<char>(b));
        if (auto it = m_keys.find(key); it != m_keys.end())
            m_byteIds[b] = it->second;
    }

    const std::string prefix = optString(model, "continuing_subword_prefix");
    const std::string suffix = optString(model, "end_of_word_suffix");
    const auto toKey = [&](const std::string& s) {
        if (!m_byteLevel)
            return s;
        auto raw = table.decode(s);
        return raw ? *raw : s;
    };
    m_prefix = toKey(prefix);
    m_suffix = toKey(suffix);

    const std::string unk = optString(model, "unk_token");
    if (!unk.empty()) {
        const auto it = m_vocab.find(unk);
        if (it == m_vocab.end())
            throw TokenizerError("BPE model: unk_token '" + unk + "' is not in the vocabulary");
        m_unk = it->second;
    }
    m_fuseUnk = model.value("fuse_unk", false);
    m_byteFallback = model.value("byte_fallback", false);
    m_ignoreMerges = model.value("ignore_merges", false);
    m_fallbackIds.fill(-1);
    if (m_byteFallback) {
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            if (auto it = m_vocab.find(std::string_view(name)); it != m_vocab.end())
                m_fallbackIds[b] = it->second;
        }
    }

    const auto& merges = model["merges"];
    m_merges.reserve(merges.size() * 2);
    int32_t rank = 0;
    for (const auto& m : merges) {
        std::string a, b;
        if (m.is_string()) {
            const auto s = m.get<std::string>();
            const auto sp = s.find(' ');
            if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
                throw TokenizerError("BPE merges: malformed merge '" + s + "'");
            a = s.substr(0, sp);
            b = s.substr(sp + 1);
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            a = m[0].get<std::string>();
            b = m[1].get<std::string>();
        } else {
            throw TokenizerError("BPE merges: malformed merge " + m.dump());
        }
        const auto ia = m_vocab.find(a), ib = m_vocab.find(b);
        if (ia == m_vocab.end() || ib == m_vocab.end())
            throw TokenizerError("BPE merges: token '" + (ia == m_vocab.end() ? a : b) + "' is not in the vocabulary");
        const std::size_t prefixLen = !prefix.empty() && b.compare(0, prefix.size(), prefix) == 0 ? prefix.size() : 0;
        const std::string merged = a + b.substr(prefixLen);
        const auto im = m_vocab.find(merged);
        if (im == m_vocab.end())
            throw TokenizerError("BPE merges: merged token '" + merged + "' is not in the vocabulary");
        const uint64_t key =
            (static_cast<uint64_t>(static_cast<uint32_t>(ia->second)) << 32) | static_cast<uint32_t>(ib->second);
        m_merges[key] = {rank, im->second};
        ++rank;
    }

    if (cacheEnabled && cacheCapacity > 0) {
        m_cache = std::make_unique<Cache>();
        m_cache->perShard = std::max<std::size_t>(1, cacheCapacity / Cache::kShards);
    }
}

BpeModel::~BpeModel() = default;

std::optional<int32_t> BpeModel::keyId(std::string_view key) const
{
    if (m_byteLevel && key.size() == 1) {
        const int32_t id = m_byteIds[static_cast<unsigned char>(key[0])];
        return id >= 0 ? std::optional<int32_t>(id) : std::nullopt;
    }
    const auto it = m_keys.find(key);
    if (it == m_keys.end())
        return std::nullopt;
    return it->second;
}

std::optional<int32_t> BpeModel::tokenToId(std::string_view vocabToken) const
{
    const auto it = m_vocab.find(vocabToken);
    if (it == m_vocab.end())
        return std::nullopt;
    return it->second;
}

const std::string* BpeModel::idToToken(int32_t id) const
{
    if (id < 0 || static_cast<std::size_t>(id) >= m_idToToken.size())
        return nullptr;
    const auto& s = m_idToToken[static_cast<std::size_t>(id)];
    // ids missing from a sparse vocabulary are empty here; a real token is never empty
    return s.empty() ? nullptr : &s;
}

void BpeModel::mergeWord(std::string_view w, std::vector<Piece>& pieces) const
{
    struct Sym {
        int32_t id;
        uint32_t len;
        int32_t prev, next;
    };
    std::vector<Sym> syms;
    syms.reserve(w.size());
    const auto add = [&](int32_t id, std::size_t len) {
        const auto n = static_cast<int32_t>(syms.size());
        syms.push_back({id, static_cast<uint32_t>(len), n - 1, -1});
        if (n > 0)
            syms[static_cast<std::size_t>(n - 1)].next = n;
    };
    bool hasUnk = false; // pending unk (id, byte length)
    int32_t unkId = 0;
    std::size_t unkLen = 0;
    std::string buf;
    for (std::size_t i = 0; i < w.size();) {
        const std::size_t unitLen = m_byteLevel ? 1 : std::min(utf8Len(static_cast<unsigned char>(w[i])), w.size() - i);
        const bool isFirst = i == 0;
        const bool isLast = i + unitLen >= w.size();
        std::string_view s = w.substr(i, unitLen);
        if ((!isFirst && !m_prefix.empty()) || (isLast && !m_suffix.empty())) {
            buf.clear();
            if (!isFirst)
                buf += m_prefix;
            buf += s;
            if (isLast)
                buf += m_suffix;
            s = buf;
        }
        i += unitLen;
        if (const auto id = keyId(s)) {
            if (hasUnk) {
                add(unkId, unkLen);
                hasUnk = false;
            }
            add(*id, unitLen);
            continue;
        }
        if (m_byteFallback) {
            bool all = true;
            for (char c : s)
                all = all && m_fallbackIds[static_cast<unsigned char>(c)] >= 0;
            if (all) {
                // (as tokenizers: a pending unk is not flushed here)
                for (char c : s)
                    add(m_fallbackIds[static_cast<unsigned char>(c)], 1);
                continue;
            }
        }
        if (m_unk) {
            if (hasUnk && m_fuseUnk) {
                unkLen += unitLen;
            } else {
                if (hasUnk)
                    add(unkId, unkLen);
                hasUnk = true;
                unkId = *m_unk;
                unkLen = unitLen;
            }
        }
    }
    if (hasUnk)
        add(unkId, unkLen);

    struct Cand {
        int32_t rank;
        int32_t pos;
        int32_t newId;
    };
    const auto worse = [](const Cand& x, const Cand& y) { return x.rank != y.rank ? x.rank > y.rank : x.pos > y.pos; };
    std::priority_queue<Cand, std::vector<Cand>, decltype(worse)> queue(worse);
    const auto mergeOf = [&](int32_t a, int32_t b) -> const std::pair<int32_t, int32_t>* {
        const auto it =
            m_merges.find((static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b));
        return it == m_merges.end() ? nullptr : &it->second;
    };
    for (std::size_t k = 0; k + 1 < syms.size(); ++k)
        if (const auto* m = mergeOf(syms[k].id, syms[k + 1].id))
            queue.push({m->first, static_cast<int32_t>(k), m->second});
    while (!queue.empty()) {
        const Cand top = queue.top();
        queue.pop();
        Sym& cur = syms[static_cast<std::size_t>(top.pos)];
        if (cur.len == 0 || cur.next < 0)
            continue;
        const int32_t nextPos = cur.next;
        Sym right = syms[static_cast<std::size_t>(nextPos)];
        const auto* m = mergeOf(cur.id, right.id);
        if (!m || m->second != top.newId)
            continue;
        cur.id = top.newId;
        cur.len += right.len;
        cur.next = right.next;
        syms[static_cast<std::size_t>(nextPos)].len = 0;
        if (right.next >= 0 && static_cast<std::size_t>(right.next) < syms.size())
            syms[static_cast<std::size_t>(right.next)].prev = top.pos;
        if (cur.prev >= 0) {
            if (const auto* pm = mergeOf(syms[static_cast<std::size_t>(cur.prev)].id, cur.id))
                queue.push({pm->first, cur.prev, pm->second});
        }
        if (cur.next >= 0) {
            if (const auto* nm = mergeOf(cur.id, syms[static_cast<std::size_t>(cur.next)].id))
                queue.push({nm->first, top.pos, nm->second});
        }
    }
    pieces.clear();
    for (const auto& s : syms)
        if (s.len != 0)
            pieces.push_back({s.id, s.len});
}

void BpeModel::tokenize(std::string_view word, std::vector<TokenOut>& out) const
{
    if (word.empty())
        return;
    if (m_ignoreMerges) {
        if (const auto id = keyId(word)) {
            out.push_back({*id, 0, static_cast<uint32_t>(word.size())});
            return;
        }
    }
    const auto emit = [&](const std::vector<Piece>& pieces) {
        uint32_t off = 0;
        for (const auto& p : pieces) {
            out.push_back({p.id, off, off + p.len});
            off += p.len;
        }
    };
    const bool cacheable = m_cache && word.size() < Cache::kMaxWordBytes;
    if (cacheable) {
        auto& shard = m_cache->shardFor(word);
        std::lock_guard lock(shard.mutex);
        if (const auto it = shard.map.find(word); it != shard.map.end()) {
            emit(it->second);
            return;
        }
    }
    thread_local std::vector<Piece> pieces;
    mergeWord(word, pieces);
    emit(pieces);
    if (cacheable) {
        auto& shard = m_cache->shardFor(word);
        std::lock_guard lock(shard.mutex);
        if (shard.map.size() < m_cache->perShard)
            shard.map.emplace(std::string(word), pieces);
    }
}

} // namespace ascviz::tok
