// The corpus reliance matrix (method.md §13): how much the prediction of completion nodes of category X relies on
// prompt nodes of category Y, from attribution by AST node over a corpus.
#pragma once
#include "ascviz/attribution/attribution.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace ascviz {

struct RelianceText {
    std::string code;
    std::string language;
};

struct RelianceOptions {
    AttributionOptions attribution; // method gradient x input by default (set by relianceMatrix's caller)
    int targetsPerText = 8;         // categorized completion nodes attributed per text (first in pre-order)
    std::function<void(std::size_t done, std::size_t total)> progress;
};

struct RelianceCell {
    double mean = 0; // mean attribution of a Y prompt node for an X target
    int64_t n = 0;   // (target, prompt node) pairs
};

struct RelianceMatrix {
    std::string method;
    int texts = 0, skipped = 0, targets = 0;
    std::vector<std::string> categories;                              // the category table's order
    std::map<std::string, std::map<std::string, RelianceCell>> cells; // [target category X][prompt category Y]
};

// Each text is cut after the first half of its lines (the prompt; at least one line), and each of its first
// `targetsPerText` categorized named nodes that start in the completion is attributed to the prompt's nodes. A text
// the probes refuse (too short, past the context) is skipped and counted.
RelianceMatrix relianceMatrix(const LanguageModel& model, const std::vector<RelianceText>& texts,
                              const RelianceOptions& opts);

// {"method", "texts", "skipped", "targets", "categories", "cells": {X: {Y: {"mean", "n"}}}}
nlohmann::json relianceJson(const RelianceMatrix& m);

} // namespace ascviz
