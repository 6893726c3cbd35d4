#include "ascviz/base/limits.h"

#include "ascviz/base/error.h"

#include <cstdio>

namespace ascviz::limits {
namespace {
std::string grouped(std::size_t n)
{
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}
} // namespace

std::string describeBytes(std::size_t bytes)
{
    if (bytes < 1000 * 1000)
        return grouped(bytes) + " bytes";
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return std::string(mb) + " (" + grouped(bytes) + " bytes)";
}

void checkTextSize(std::size_t bytes, std::size_t limit, const std::string& what)
{
    if (limit == 0 || bytes <= limit)
        return;
    throw InputError(what + " is " + describeBytes(bytes) + ", over the limit of " + grouped(limit) +
                     " bytes for scoring with a model (" + kMaxTextBytesOption + " N raises it, 0 = no limit)");
}

void checkAstDepth(int levels, int maxDepth)
{
    if (maxDepth <= 0 || levels <= maxDepth)
        return;
    throw InputError("the syntax tree is " + grouped(static_cast<std::size_t>(levels)) +
                     " levels deep, over the limit of " + grouped(static_cast<std::size_t>(maxDepth)) +
                     " levels for AsC-Eval (" + kMaxAstDepthOption + " N raises it, 0 = no limit)");
}

void checkAstNodes(std::size_t nodes, std::size_t maxNodes)
{
    if (maxNodes == 0 || nodes <= maxNodes)
        return;
    throw InputError("the syntax tree has " + grouped(nodes) + " nodes, over the limit of " + grouped(maxNodes) +
                     " nodes (" + kMaxAstNodesOption + " N raises it, 0 = no limit)");
}

std::string withoutOptionAdvice(const std::string& message, const std::string& option)
{
    const std::string advice = " (" + option + " N raises it, 0 = no limit)";
    std::string out = message;
    for (auto at = out.find(advice); at != std::string::npos; at = out.find(advice, at))
        out.erase(at, advice.size());
    return out;
}

} // namespace ascviz::limits
