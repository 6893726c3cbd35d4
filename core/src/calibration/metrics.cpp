#include "ascviz/calibration/metrics.h"

#include "ascviz/results/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ascviz::calibration {
namespace {

// Bins from each token's bin index: sums, then means.
std::vector<ReliabilityBin> binStats(const std::vector<Labelled>& tokens, const std::vector<int>& binOf, int bins)
{
    std::vector<ReliabilityBin> out(static_cast<std::size_t>(std::max(1, bins)));
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        ReliabilityBin& b = out[static_cast<std::size_t>(binOf[i])];
        ++b.n;
        b.confidence += tokens[i].confidence;
        b.accuracy += tokens[i].correct ? 1.0 : 0.0;
    }
    for (ReliabilityBin& b : out)
        if (b.n > 0) {
            b.confidence /= static_cast<double>(b.n);
            b.accuracy /= static_cast<double>(b.n);
        }
    return out;
}

} // namespace

std::vector<ReliabilityBin> equalWidthBins(const std::vector<Labelled>& tokens, int bins)
{
    const int B = std::max(1, bins);
    std::vector<int> binOf;
    binOf.reserve(tokens.size());
    for (const Labelled& t : tokens) {
        const double x = std::floor(t.confidence * static_cast<double>(B));
        binOf.push_back(static_cast<int>(std::clamp(x, 0.0, static_cast<double>(B - 1))));
    }
    return binStats(tokens, binOf, B);
}

std::vector<ReliabilityBin> equalMassBins(const std::vector<Labelled>& tokens, int bins)
{
    const int B = std::max(1, bins);
    const std::size_t N = tokens.size();
    std::vector<std::size_t> order(N);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return tokens[a].confidence < tokens[b].confidence; });
    std::vector<int> binOf(N);
    for (int b = 0; b < B; ++b) {
        const std::size_t from = static_cast<std::size_t>(b) * N / static_cast<std::size_t>(B);
        const std::size_t to = static_cast<std::size_t>(b + 1) * N / static_cast<std::size_t>(B);
        for (std::size_t k = from; k < to; ++k)
            binOf[order[k]] = b;
    }
    return binStats(tokens, binOf, B);
}

std::optional<double> expectedCalibrationError(const std::vector<ReliabilityBin>& bins)
{
    int64_t N = 0;
    for (const ReliabilityBin& b : bins)
        N += b.n;
    if (N == 0)
        return std::nullopt;
    double ece = 0.0;
    for (const ReliabilityBin& b : bins)
        ece += static_cast<double>(b.n) / static_cast<double>(N) * std::abs(b.accuracy - b.confidence);
    return ece;
}

std::optional<double> maximumCalibrationError(const std::vector<ReliabilityBin>& bins)
{
    std::optional<double> mce;
    for (const ReliabilityBin& b : bins)
        if (b.n > 0)
            mce = std::max(mce.value_or(0.0), std::abs(b.accuracy - b.confidence));
    return mce;
}

std::optional<double> brierScore(const std::vector<Labelled>& tokens)
{
    if (tokens.empty())
        return std::nullopt;
    double sum = 0.0;
    for (const Labelled& t : tokens) {
        const double d = t.confidence - (t.correct ? 1.0 : 0.0);
        sum += d * d;
    }
    return sum / static_cast<double>(tokens.size());
}

std::optional<double> auroc(const std::vector<double>& score, const std::vector<bool>& error)
{
    const std::size_t N = std::min(score.size(), error.size());
    std::vector<std::size_t> order(N);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] < score[b]; });
    // Average ranks (1-based) over runs of equal scores; the positives' rank sum gives U.
    double rankSum = 0.0;
    int64_t pos = 0;
    for (std::size_t i = 0; i < N;) {
        std::size_t j = i;
        while (j < N && score[order[j]] == score[order[i]])
            ++j;
        const double avg = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
        for (std::size_t k = i; k < j; ++k)
            if (error[order[k]]) {
                rankSum += avg;
                ++pos;
            }
        i = j;
    }
    const int64_t neg = static_cast<int64_t>(N) - pos;
    if (pos == 0 || neg == 0)
        return std::nullopt;
    const double p = static_cast<double>(pos);
    return (rankSum - p * (p + 1.0) / 2.0) / (p * static_cast<double>(neg));
}

std::optional<double> averagePrecision(const std::vector<double>& score, const std::vector<bool>& error)
{
    const std::size_t N = std::min(score.size(), error.size());
    std::vector<std::size_t> order(N);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
    int64_t positives = 0;
    for (std::size_t i = 0; i < N; ++i)
        positives += error[i] ? 1 : 0;
    if (positives == 0)
        return std::nullopt;
    double ap = 0.0, recallBefore = 0.0;
    int64_t tp = 0, fp = 0;
    for (std::size_t i = 0; i < N;) {
        std::size_t j = i;
        while (j < N && score[order[j]] == score[order[i]]) { // one threshold: every token of this score
            (error[order[j]] ? tp : fp) += 1;
            ++j;
        }
        const double recall = static_cast<double>(tp) / static_cast<double>(positives);
        const double precision = static_cast<double>(tp) / static_cast<double>(tp + fp);
        ap += (recall - recallBefore) * precision;
        recallBefore = recall;
        i = j;
    }
    return ap;
}

std::optional<std::pair<double, double>> percentileInterval(std::vector<double> statistics)
{
    if (statistics.empty())
        return std::nullopt;
    std::sort(statistics.begin(), statistics.end());
    return std::make_pair(percentileSorted(statistics, 2.5), percentileSorted(statistics, 97.5));
}

} // namespace ascviz::calibration
