#include "ascviz/base/scored.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <limits>

namespace ascviz {

std::optional<double> ScoredToken::crossEntropy() const
{
    if (!ntp)
        return std::nullopt;
    return -std::log(*ntp);
}

double ScoredText::crossEntropy() const
{
    double sum = 0.0;
    int n = 0;
    for (const auto& t : tokens) {
        if (auto ce = t.crossEntropy()) {
            sum += *ce;
            ++n;
        }
    }
    return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

bool isValidNtp(double p)
{
    return std::isfinite(p) && p >= 0.0 && p <= 1.0;
}

void splitAtPrompt(ScoredText& s, std::size_t promptBytes)
{
    if (promptBytes > s.text.size())
        throw InputError("the prompt of " + std::to_string(promptBytes) + " bytes is beyond the end of the text (" +
                         std::to_string(s.text.size()) + " bytes)");
    s.promptBytes = promptBytes;
    s.promptTokens = 0;
    for (auto& t : s.tokens) {
        t.generated = t.start >= promptBytes;
        if (!t.generated)
            ++s.promptTokens;
    }
}

bool splitAtPromptText(ScoredText& s, const std::optional<std::string>& prompt)
{
    const bool prefix = prompt && prompt->size() <= s.text.size() && s.text.compare(0, prompt->size(), *prompt) == 0;
    splitAtPrompt(s, prefix ? prompt->size() : s.text.size());
    return prefix || !prompt;
}

} // namespace ascviz

namespace ascviz {

const char* stopReasonName(StopReason r)
{
    switch (r) {
    case StopReason::Eos:
        return "eos";
    case StopReason::Length:
        return "length";
    case StopReason::Cancelled:
        return "cancelled";
    case StopReason::Context:
        return "context";
    case StopReason::None:
        break;
    }
    return "";
}

} // namespace ascviz
