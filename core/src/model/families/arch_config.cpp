// The typed reader of config.json values every family's config reader uses (arch_config.h): a key of the wrong type
// or out of range is refused naming it, the same rule in every family (issue 54).
#include "families/arch_config.h"
#include "decoder/arch.h"

#include "ascviz/base/error.h"

#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

using nlohmann::json;

namespace ascviz::model {
namespace cfg {

// ---------- config.json helpers (arch_config.h) ----------

const json* field(const json& j, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (auto it = j.find(n); it != j.end() && !it->is_null())
            return &*it;
    return nullptr;
}

namespace {

// The counts and sizes the decoder divides by or allocates per item. Each must be an integer from 1 to its bound
// (issue 54: num_attention_heads 0 divided by zero, SIGFPE; num_hidden_layers 1e9 allocated 7.8 GB, then
// std::bad_alloc); a value outside is refused naming the key. The bounds are far above any real checkpoint.
constexpr int64_t kMaxCount = 65536;            // layers, heads, experts
constexpr int64_t kMaxWidth = int64_t(1) << 24; // widths, vocabularies, positions

int64_t sizeBound(std::string_view key)
{
    static constexpr std::string_view counts[] = {"num_attention_heads",
                                                  "n_head",
                                                  "n_heads",
                                                  "num_heads",
                                                  "num_key_value_heads",
                                                  "n_kv_heads",
                                                  "num_kv_heads",
                                                  "num_hidden_layers",
                                                  "n_layer",
                                                  "n_layers",
                                                  "num_layers",
                                                  "num_experts_per_tok",
                                                  "n_routed_experts",
                                                  "multi_query_group_num"};
    static constexpr std::string_view widths[] = {"hidden_size",
                                                  "n_embd",
                                                  "d_model",
                                                  "vocab_size",
                                                  "padded_vocab_size",
                                                  "intermediate_size",
                                                  "head_dim",
                                                  "kv_channels",
                                                  "moe_intermediate_size",
                                                  "kv_lora_rank",
                                                  "qk_rope_head_dim",
                                                  "qk_nope_head_dim",
                                                  "v_head_dim",
                                                  "sliding_window"}; // null = no window, in every family
    for (std::string_view k : counts)
        if (k == key)
            return kMaxCount;
    for (std::string_view k : widths)
        if (k == key)
            return kMaxWidth;
    return 0; // not a size: any integer
}

// The value of the first of `names` present, checked against its key's bound.
int64_t checkedInt(const json& j, std::initializer_list<const char*> names, const std::string& path)
{
    for (const char* n : names) {
        const auto it = j.find(n);
        if (it == j.end() || it->is_null())
            continue;
        const int64_t v = it->get<int64_t>();
        if (const int64_t bound = sizeBound(n); bound && (v < 1 || v > bound))
            throw ModelError(path + ": " + n + " = " + it->dump() + " (a count or size must be from 1 to " +
                             std::to_string(bound) + ")");
        return v;
    }
    return 0;
}

} // namespace

int64_t intField(const json& j, std::initializer_list<const char*> names, const std::string& path)
{
    const json* f = field(j, names);
    if (!f || !f->is_number_integer()) {
        std::string list;
        for (const char* n : names)
            list += (list.empty() ? "" : " or ") + std::string(n);
        throw ModelError(path + ": missing or non-integer " + list);
    }
    return checkedInt(j, names, path);
}

namespace {
// A key present with a value of another type is refused naming it, in every family (issue 54: mistral's
// "sliding_window": "8" was silently dropped and the numbers changed, while "num_attention_heads": "4" was
// refused; "rms_norm_eps": "x" was ignored). Absent and null keep the fallback.
[[noreturn]] void wrongType(std::initializer_list<const char*> names, const json& j, const char* expected)
{
    for (const char* n : names)
        if (const auto it = j.find(n); it != j.end() && !it->is_null())
            throw ModelError(std::string("config.json: ") + n + " = " + it->dump() + " (" + expected + " expected)");
    throw ModelError(std::string("config.json: a value of the wrong type (") + expected + " expected)");
}
} // namespace

int64_t intOr(const json& j, std::initializer_list<const char*> names, int64_t fallback)
{
    const json* f = field(j, names);
    if (!f)
        return fallback;
    if (!f->is_number_integer())
        wrongType(names, j, "an integer");
    return checkedInt(j, names, "config.json");
}

double numberOr(const json& j, std::initializer_list<const char*> names, double fallback)
{
    const json* f = field(j, names);
    if (!f)
        return fallback;
    if (!f->is_number())
        wrongType(names, j, "a number");
    return f->get<double>();
}

bool boolOr(const json& j, const char* name, bool fallback)
{
    const json* f = field(j, {name});
    if (!f)
        return fallback;
    if (!f->is_boolean())
        wrongType({name}, j, "true or false");
    return f->get<bool>();
}

Activation activationOf(const std::string& name, const std::string& path)
{
    if (name == "gelu_new" || name == "gelu_fast" || name == "gelu_pytorch_tanh" || name == "gelu_python_tanh")
        return Activation::GeluTanh;
    if (name == "gelu" || name == "gelu_python")
        return Activation::GeluErf;
    if (name == "silu" || name == "swish")
        return Activation::Silu;
    if (name == "relu")
        return Activation::Relu;
    if (name == "quick_gelu")
        return Activation::QuickGelu;
    if (name == "relu2")
        return Activation::Relu2;
    throw ModelError(
        path + ": activation \"" + name +
        "\" is not supported (supported: gelu_new, gelu_fast, gelu_pytorch_tanh, gelu, silu, relu, relu2, quick_gelu)");
}

Activation activationField(const json& j, std::initializer_list<const char*> names, const std::string& fallback,
                           const std::string& path)
{
    const json* f = field(j, names);
    return activationOf(f && f->is_string() ? f->get<std::string>() : fallback, path);
}

} // namespace cfg
} // namespace ascviz::model
