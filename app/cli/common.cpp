#include "common.h"

#include "ascviz/base/error.h"
#include "ascviz/base/limits.h"
#include "ascviz/base/resources.h"

#include <climits>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <vector>

namespace ascviz::cli {

Aggregation aggregationOption(Args& args)
{
    try {
        return parseAggregation(args.valueOr("--aggregation", "median"));
    } catch (const InputError&) {
        throw UsageError("--aggregation must be median, mean, max or min");
    }
}

std::string remedyForCli(Remedy remedy, const std::string& command)
{
    const bool resume = hasRemedy(remedy, Remedy::Resume);
    const bool output = hasRemedy(remedy, Remedy::NewOutput);
    const std::string outFlag = (command == "merge" || command == "slurm") ? "--out" : "--db";
    std::string out;
    if (resume && output)
        out = "; continue it with --resume, or choose another " + outFlag;
    else if (resume)
        out = "; continue it with --resume";
    else if (output)
        out = "; choose another " + outFlag;
    // a figure's settings, as render's flags
    std::vector<std::string> settings;
    if (hasRemedy(remedy, Remedy::Orientation))
        settings.push_back("--orientation td|lr sets the orientation");
    if (hasRemedy(remedy, Remedy::DepthLimit))
        settings.push_back("--max-depth N the depth");
    if (hasRemedy(remedy, Remedy::Subtree))
        settings.push_back("--subtree NODE the subtree drawn");
    for (std::size_t i = 0; i < settings.size(); ++i)
        out += (i == 0 ? "; " : ", ") + settings[i];
    return out;
}

namespace {
// A load option's value by core's one name table (model/loadoptions.h); a name it lacks is a usage error.
template <class E> E loadOption(Args& args, const std::string& flag)
{
    const std::string v = args.valueOr(flag, "auto");
    if (const auto e = parseLoadOption<E>(v))
        return *e;
    throw UsageError(flag + " must be " + loadOptionChoices<E>());
}
} // namespace

LoadOptions loadOptions(Args& args)
{
    LoadOptions o;
    o.device = loadOption<Device>(args, "--device");
    o.dtype = loadOption<Dtype>(args, "--dtype");
    o.weights = loadOption<Weights>(args, "--weights");
    o.threads = args.intValue("--threads", 0);
    if (o.threads < 0)
        throw UsageError("--threads must be >= 0");
    return o;
}

std::unique_ptr<LanguageModel> loadModel(Args& args)
{
    const auto dir = resolveModelDir(args.valueOr("--model", "default"));
    auto opts = loadOptions(args);
    return LanguageModel::load(dir, opts);
}

ShardSpec shardOption(const std::optional<std::string>& value)
{
    if (!value)
        return {};
    return usageOf("--shard", [&] { return parseShard(*value); });
}

std::size_t maxTextBytesOption(Args& args)
{
    return static_cast<std::size_t>(args.uint64Value(limits::kMaxTextBytesOption, limits::kDefaultMaxTextBytes));
}

int maxAstDepthOption(Args& args)
{
    const int n = args.intValue(limits::kMaxAstDepthOption, limits::kDefaultMaxAstDepth);
    if (n < 0)
        throw UsageError(std::string(limits::kMaxAstDepthOption) + " must be >= 0 (0 = no limit)");
    return n;
}

std::size_t maxAstNodesOption(Args& args)
{
    return static_cast<std::size_t>(args.uint64Value(limits::kMaxAstNodesOption, limits::kDefaultMaxAstNodes));
}

void samplingOptions(Args& args, GenerationSettings& g, const std::string& seedFlag)
{
    const bool greedy = args.flag("--greedy");
    const auto temperature = args.value("--temperature");
    const auto topP = args.value("--top-p");
    const auto topK = args.value("--top-k");
    const auto seed = args.value(seedFlag);
    const bool sampling = temperature || topP || topK || seed;
    if (greedy && sampling)
        throw UsageError("--greedy cannot be combined with --temperature, --top-p, --top-k or " + seedFlag);
    g.greedy = !sampling;
    auto number = [](const std::string& name, const std::string& v) {
        try {
            std::size_t used = 0;
            const double d = std::stod(v, &used);
            if (used != v.size())
                throw std::invalid_argument(v);
            return d;
        } catch (const std::exception&) {
            throw UsageError(name + " expects a number, got '" + v + "'");
        }
    };
    if (temperature)
        g.temperature = number("--temperature", *temperature);
    if (topP)
        g.topP = number("--top-p", *topP);
    // whole numbers, range-checked: a fraction or a negative seed is refused, not truncated or wrapped
    auto whole = [](const std::string& name, const std::string& v, unsigned long long hi) {
        try {
            std::size_t used = 0;
            if (v.empty() || v[0] == '-' || v[0] == '+')
                throw std::invalid_argument(v);
            const unsigned long long x = std::stoull(v, &used);
            if (used != v.size() || x > hi)
                throw std::invalid_argument(v);
            return x;
        } catch (const std::exception&) {
            throw UsageError(name + " expects a whole number >= 0, got '" + v + "'");
        }
    };
    if (topK)
        g.topK = static_cast<int>(whole("--top-k", *topK, static_cast<unsigned long long>(INT_MAX)));
    if (seed)
        g.seed = static_cast<uint64_t>(whole(seedFlag, *seed, ULLONG_MAX));
    if (sampling && !(g.temperature > 0))
        throw UsageError("--temperature must be > 0");
    if (g.topP <= 0 || g.topP > 1)
        throw UsageError("--top-p must be in (0, 1]");
    if (g.topK < 0)
        throw UsageError("--top-k must be >= 0");
}

namespace {
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void onInterruptSignal(int sig)
{
    if (g_interrupted.load()) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        return;
    }
    g_interrupted.store(true);
}
} // namespace

InterruptScope::InterruptScope()
{
    g_interrupted = false;
    std::signal(SIGINT, onInterruptSignal);
    std::signal(SIGTERM, onInterruptSignal);
}

InterruptScope::~InterruptScope()
{
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

const std::atomic<bool>* InterruptScope::cancelFlag()
{
    return &g_interrupted;
}

} // namespace ascviz::cli
