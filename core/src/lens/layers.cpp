#include "ascviz/lens/layers.h"

#include "ascviz/base/error.h"

#include <string>

namespace ascviz {

LayerEval evaluateLayers(const EvalResult& r, const std::vector<std::vector<double>>& tokenLayers, int layers,
                         const std::vector<std::optional<int>>& tokenCommit)
{
    if (tokenLayers.size() != r.scored.tokens.size())
        throw InputError("the layer lens has " + std::to_string(tokenLayers.size()) + " tokens, the evaluated text " +
                         std::to_string(r.scored.tokens.size()));
    const auto width = static_cast<std::size_t>(layers) + 1;
    for (std::size_t i = 0; i < tokenLayers.size(); ++i)
        if (!tokenLayers[i].empty() && tokenLayers[i].size() != width)
            throw InputError("token " + std::to_string(i) + " of the layer lens has " +
                             std::to_string(tokenLayers[i].size()) + " layers, expected " + std::to_string(width));
    LayerEval out;
    out.layers = layers;
    out.nodes.reserve(r.nodes.size());
    std::vector<double> values;
    for (const auto& node : r.nodes) {
        std::vector<std::optional<double>> row(width);
        for (std::size_t l = 0; l < width; ++l) {
            values.clear();
            for (const int t : node.tokens) {
                const auto& tl = tokenLayers[static_cast<std::size_t>(t)];
                if (!tl.empty())
                    values.push_back(tl[l]);
            }
            row[l] = aggregate(values, r.aggregation);
        }
        out.nodes.push_back(std::move(row));
    }
    if (tokenCommit.empty())
        return out;
    if (tokenCommit.size() != r.scored.tokens.size())
        throw InputError("the commitment layers cover " + std::to_string(tokenCommit.size()) +
                         " tokens, the evaluated text " + std::to_string(r.scored.tokens.size()));
    for (std::size_t i = 0; i < tokenCommit.size(); ++i)
        if (tokenCommit[i] && (*tokenCommit[i] < 0 || *tokenCommit[i] > layers))
            throw InputError("token " + std::to_string(i) + " commits at layer " + std::to_string(*tokenCommit[i]) +
                             ", outside 0 … " + std::to_string(layers));
    out.tokenCommit = tokenCommit;
    out.commit.reserve(r.nodes.size());
    for (const auto& node : r.nodes) {
        values.clear();
        for (const int t : node.tokens)
            if (const auto& c = tokenCommit[static_cast<std::size_t>(t)])
                values.push_back(*c);
        out.commit.push_back(aggregate(values, Aggregation::Median));
    }
    return out;
}

void addLayerFields(nlohmann::json& j, const std::vector<std::vector<double>>& tokenLayers, const LayerEval& layers)
{
    j["layers"] = layers.layers;
    auto& tokens = j.at("tokens");
    for (std::size_t i = 0; i < tokens.size() && i < tokenLayers.size(); ++i)
        tokens[i]["ntp_layers"] = tokenLayers[i].empty() ? nlohmann::json(nullptr) : nlohmann::json(tokenLayers[i]);
    auto& nodes = j.at("nodes");
    for (std::size_t k = 0; k < nodes.size() && k < layers.nodes.size(); ++k) {
        nlohmann::json row = nlohmann::json::array();
        for (const auto& v : layers.nodes[k])
            row.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
        nodes[k]["asc_eval_layers"] = std::move(row);
    }
    if (layers.tokenCommit.empty())
        return;
    for (std::size_t i = 0; i < tokens.size() && i < layers.tokenCommit.size(); ++i)
        tokens[i]["commit_layer"] =
            layers.tokenCommit[i] ? nlohmann::json(*layers.tokenCommit[i]) : nlohmann::json(nullptr);
    for (std::size_t k = 0; k < nodes.size() && k < layers.commit.size(); ++k)
        nodes[k]["asc_commit"] = layers.commit[k] ? nlohmann::json(*layers.commit[k]) : nlohmann::json(nullptr);
}

} // namespace ascviz
