#include "args.h"

#include <algorithm>
#include <stdexcept>

namespace ascviz::cli {

Args::Args(std::vector<std::string> tokens) : m_tokens(std::move(tokens)), m_used(m_tokens.size(), false)
{
}

std::optional<std::string> Args::take(const std::string& name, bool dashValues)
{
    const std::string prefix = name + "=";
    for (std::size_t i = 0; i < m_tokens.size(); ++i) {
        if (m_used[i])
            continue;
        if (m_tokens[i] == name) {
            if (i + 1 >= m_tokens.size() || m_used[i + 1] ||
                (!dashValues && m_tokens[i + 1].rfind("--", 0) == 0 && m_tokens[i + 1].size() > 2))
                throw UsageError(name + " needs a value");
            m_used[i] = m_used[i + 1] = true;
            m_taken.push_back(name);
            return m_tokens[i + 1];
        }
        if (m_tokens[i].rfind(prefix, 0) == 0) {
            m_used[i] = true;
            m_taken.push_back(name);
            return m_tokens[i].substr(prefix.size());
        }
    }
    return std::nullopt;
}

std::optional<std::string> Args::value(const std::string& name)
{
    return take(name, false);
}

std::optional<std::string> Args::subcommand()
{
    if (m_tokens.empty() || m_used[0] || m_tokens[0].rfind("--", 0) == 0)
        return std::nullopt;
    m_used[0] = true;
    return m_tokens[0];
}

std::vector<std::string> Args::values(const std::string& name, bool dashValues)
{
    std::vector<std::string> out;
    while (auto v = take(name, dashValues))
        out.push_back(std::move(*v));
    return out;
}

std::vector<std::string> Args::positionals()
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < m_tokens.size(); ++i)
        if (!m_used[i] && (m_tokens[i].rfind("--", 0) != 0 || m_tokens[i] == "-")) {
            m_used[i] = true;
            out.push_back(m_tokens[i]);
        }
    return out;
}

std::string Args::require(const std::string& name)
{
    if (auto v = value(name))
        return *v;
    throw UsageError("missing required option " + name);
}

std::string Args::valueOr(const std::string& name, const std::string& fallback)
{
    auto v = value(name);
    return v ? *v : fallback;
}

int Args::intValue(const std::string& name, int fallback)
{
    auto v = value(name);
    if (!v)
        return fallback;
    try {
        std::size_t pos = 0;
        const int x = std::stoi(*v, &pos);
        if (pos != v->size())
            throw std::invalid_argument("trailing");
        return x;
    } catch (const std::exception&) {
        throw UsageError(name + " expects an integer, got '" + *v + "'");
    }
}

int Args::intValue(const std::string& name, int fallback, int min, int max)
{
    const int x = intValue(name, fallback);
    if (x < min || x > max)
        throw UsageError(name + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         std::to_string(x));
    return x;
}

uint64_t Args::uint64Value(const std::string& name, uint64_t fallback)
{
    auto v = value(name);
    if (!v)
        return fallback;
    try {
        std::size_t pos = 0;
        if (v->empty() || (*v)[0] == '-')
            throw std::invalid_argument("negative");
        const uint64_t x = std::stoull(*v, &pos);
        if (pos != v->size())
            throw std::invalid_argument("trailing");
        return x;
    } catch (const std::exception&) {
        throw UsageError(name + " expects a non-negative integer, got '" + *v + "'");
    }
}

double Args::doubleValue(const std::string& name, double fallback)
{
    auto v = value(name);
    if (!v)
        return fallback;
    try {
        std::size_t pos = 0;
        const double x = std::stod(*v, &pos);
        if (pos != v->size())
            throw std::invalid_argument("trailing");
        return x;
    } catch (const std::exception&) {
        throw UsageError(name + " expects a number, got '" + *v + "'");
    }
}

bool Args::flag(const std::string& name)
{
    bool found = false;
    for (std::size_t i = 0; i < m_tokens.size(); ++i) {
        if (!m_used[i] && m_tokens[i] == name) {
            m_used[i] = true;
            found = true;
        }
    }
    return found;
}

void Args::finish() const
{
    for (std::size_t i = 0; i < m_tokens.size(); ++i) {
        if (m_used[i])
            continue;
        // A second --x of an option read once: say so, not "unknown" (issue 54).
        const std::string name = m_tokens[i].substr(0, m_tokens[i].find('='));
        if (std::find(m_taken.begin(), m_taken.end(), name) != m_taken.end())
            throw UsageError(name + " is given more than once");
        throw UsageError("unknown argument '" + m_tokens[i] + "'");
    }
}

} // namespace ascviz::cli
