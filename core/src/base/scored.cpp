#include "ascviz/base/scored.h"

#include "ascviz/base/error.h"
#include "ascviz/base/tokenspans.h"
#include "ascviz/base/utf8.h"

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

namespace ascviz {

std::optional<std::string> tokenSpanProblem(const ScoredText& s)
{
    const std::string_view text = s.text;
    auto boundary = [&](std::size_t b) {
        return b == 0 || b >= text.size() || (static_cast<unsigned char>(text[b]) & 0xC0) != 0x80;
    };
    const ScoredToken* prev = nullptr;
    for (std::size_t i = 0; i < s.tokens.size(); ++i) {
        const ScoredToken& t = s.tokens[i];
        const std::string name =
            "token " + std::to_string(i) + " [" + std::to_string(t.start) + ", " + std::to_string(t.end) + ")";
        if (t.start > t.end)
            return name + " ends before it starts";
        if (t.end > text.size())
            return name + " ends after the text's " + std::to_string(text.size()) + " bytes";
        if (!boundary(t.start) || !boundary(t.end))
            return name + " begins or ends inside a UTF-8 character";
        if (prev) {
            if (t.start < prev->start || t.end < prev->end)
                return name + " goes back before token " + std::to_string(i - 1) + " [" + std::to_string(prev->start) +
                       ", " + std::to_string(prev->end) + ")";
            // An overlap of one character: the previous span ends with the character this one begins with.
            if (t.start < prev->end && (t.start != utf8Floor(text, prev->end - 1)))
                return name + " overlaps token " + std::to_string(i - 1) + " [" + std::to_string(prev->start) + ", " +
                       std::to_string(prev->end) + ") by more than one character";
        }
        prev = &t;
    }
    return std::nullopt;
}

} // namespace ascviz
