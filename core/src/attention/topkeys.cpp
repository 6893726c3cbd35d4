// The few heaviest keys per query (method.md §11).
#include "ascviz/attention/topkeys.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <cmath>

namespace ascviz {

AttentionTopKeys::AttentionTopKeys(int layers, int bos, int keep) : m_layers(layers), m_bos(bos), m_keep(keep)
{
    if (layers <= 0 || keep <= 0)
        throw InputError("attention view: needs at least one layer and one key per query");
    m_keys.resize(static_cast<std::size_t>(layers));
}

void AttentionTopKeys::observeAttention(int layer, int64_t position, std::span<const int64_t> shape,
                                        std::span<const float> data)
{
    if (shape.size() != 3 || shape[1] != shape[2] || shape[0] <= 0 ||
        data.size() != static_cast<std::size_t>(shape[0] * shape[1] * shape[2]) || layer < 0 || layer >= m_layers)
        throw InputError("attention view: layer " + std::to_string(layer) + " is not [heads, T, T] of the model");
    const int H = static_cast<int>(shape[0]);
    const int64_t T = shape[1];
    if (m_heads && H != m_heads)
        throw InputError("attention view: the head count changes at layer " + std::to_string(layer));
    m_heads = H;
    auto& perHead = m_keys[static_cast<std::size_t>(layer)];
    perHead.resize(static_cast<std::size_t>(H));
    const int64_t firstToken = position - m_bos;
    std::vector<Key> row;
    for (int h = 0; h < H; ++h) {
        auto& perQuery = perHead[static_cast<std::size_t>(h)];
        for (int64_t r = 0; r < T; ++r) {
            const int64_t q = firstToken + r;
            if (q < 0)
                continue;
            if (static_cast<std::size_t>(q) < perQuery.size() && !perQuery[static_cast<std::size_t>(q)].empty())
                continue; // kept from an earlier window
            if (static_cast<std::size_t>(q) >= perQuery.size())
                perQuery.resize(static_cast<std::size_t>(q) + 1);
            row.clear();
            for (int64_t k = 0; k <= r; ++k)
                row.push_back({static_cast<int>(firstToken + k < 0 ? -1 : firstToken + k),
                               data[static_cast<std::size_t>((h * T + r) * T + k)]});
            const std::size_t n = std::min(row.size(), static_cast<std::size_t>(m_keep));
            std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n), row.end(),
                              [](const Key& a, const Key& b) { return a.weight > b.weight; });
            perQuery[static_cast<std::size_t>(q)].assign(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n));
            m_queries = std::max(m_queries, static_cast<int>(q) + 1);
        }
    }
}

std::vector<AttentionTopKeys::Key> AttentionTopKeys::keys(int layer, int head, int query) const
{
    if (layer < 0 || layer >= m_layers || head < 0 || head >= m_heads || query < 0)
        return {};
    const auto& perHead = m_keys[static_cast<std::size_t>(layer)];
    if (static_cast<std::size_t>(head) >= perHead.size())
        return {};
    const auto& perQuery = perHead[static_cast<std::size_t>(head)];
    return static_cast<std::size_t>(query) < perQuery.size() ? perQuery[static_cast<std::size_t>(query)]
                                                             : std::vector<Key>{};
}

nlohmann::json attentionArcsJson(const AttentionTopKeys& top, int tokens, double minWeight, int digits)
{
    if (digits < 0 || digits > 9 || !(minWeight >= 0))
        throw InputError("attention view: digits must be 0..9 and the smallest weight at least 0");
    const double scale = std::pow(10.0, digits);
    nlohmann::json layers = nlohmann::json::array();
    for (int l = 0; l < top.layers(); ++l) {
        nlohmann::json heads = nlohmann::json::array();
        for (int h = 0; h < top.heads(); ++h) {
            nlohmann::json queries = nlohmann::json::array();
            for (int q = 0; q < tokens; ++q) {
                nlohmann::json row = nlohmann::json::array();
                for (const auto& k : top.keys(l, h, q)) {
                    if (!(k.weight >= minWeight))
                        continue;
                    row.push_back(k.token);
                    row.push_back(std::round(static_cast<double>(k.weight) * scale) / scale);
                }
                queries.push_back(std::move(row));
            }
            heads.push_back(std::move(queries));
        }
        layers.push_back(std::move(heads));
    }
    return {{"layers", top.layers()},  {"heads", top.heads()}, {"keep", top.keep()},
            {"min_weight", minWeight}, {"digits", digits},     {"rows", std::move(layers)}};
}

} // namespace ascviz
