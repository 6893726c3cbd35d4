// The typed load options (LoadOptions, model.h) and their one name table: every front end (the CLI's --device,
// --dtype and --weights, the GUI's choosers and command line, Python's load_model) lists and parses these names
// here, so no front end accepts a value another refuses. Torch-free.
#pragma once
#include "ascviz/base/error.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz {

// Where the model computes. Auto: CUDA when LibTorch finds a GPU, else the CPU.
enum class Device { Auto, Cpu, Cuda };
// The compute precision. Auto = Float32 on every device (method.md §1); Bfloat16Matmul: float32 weights and
// activations with the linear layers' products in bfloat16 through oneDNN (CPUs with AVX512-BF16).
enum class Dtype { Auto, Float32, Float16, Bfloat16, Bfloat16Matmul };
// The weights in memory (CPU): Float32 = converted to the compute dtype; Checkpoint = a bfloat16 / float16
// checkpoint's matrices kept in their dtype, memory-mapped, widened to float32 per product; Auto = Checkpoint
// when the matrices are 16-bit and their float32 copy would not fit in the memory available, else Float32.
enum class Weights { Auto, Float32, Checkpoint };

template <class E> struct LoadOptionName {
    E value;
    std::string_view name;
};

template <class E> struct LoadOptionTable;

template <> struct LoadOptionTable<Device> {
    static constexpr std::string_view key = "device";
    static constexpr std::array<LoadOptionName<Device>, 3> names{
        {{Device::Auto, "auto"}, {Device::Cpu, "cpu"}, {Device::Cuda, "cuda"}}};
};

template <> struct LoadOptionTable<Dtype> {
    static constexpr std::string_view key = "dtype";
    static constexpr std::array<LoadOptionName<Dtype>, 5> names{{{Dtype::Auto, "auto"},
                                                                 {Dtype::Float32, "float32"},
                                                                 {Dtype::Float16, "float16"},
                                                                 {Dtype::Bfloat16, "bfloat16"},
                                                                 {Dtype::Bfloat16Matmul, "bfloat16-matmul"}}};
};

template <> struct LoadOptionTable<Weights> {
    static constexpr std::string_view key = "weights";
    static constexpr std::array<LoadOptionName<Weights>, 3> names{
        {{Weights::Auto, "auto"}, {Weights::Float32, "float32"}, {Weights::Checkpoint, "checkpoint"}}};
};

// "auto", "cpu", ... for a value of the table.
template <class E> constexpr std::string_view loadOptionName(E value)
{
    for (const auto& n : LoadOptionTable<E>::names)
        if (n.value == value)
            return n.name;
    return {};
}

// The value of a name, or nullopt for a name the table does not have (case-sensitive, as the CLI always was).
template <class E> constexpr std::optional<E> parseLoadOption(std::string_view name)
{
    for (const auto& n : LoadOptionTable<E>::names)
        if (n.name == name)
            return n.value;
    return std::nullopt;
}

// Every name, in the table's order (the choosers' items, Python's tuples).
template <class E> std::vector<std::string> loadOptionNames()
{
    std::vector<std::string> out;
    for (const auto& n : LoadOptionTable<E>::names)
        out.emplace_back(n.name);
    return out;
}

// "auto, cpu or cuda": the names for a message.
template <class E> std::string loadOptionChoices()
{
    std::string out;
    const auto& names = LoadOptionTable<E>::names;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += std::string(i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + std::string(names[i].name);
    return out;
}

// The value of a name, or InputError "unknown dtype \"x\" (auto, float32, ...)" (benchmarks, bindings).
template <class E> E requireLoadOption(std::string_view name)
{
    if (const auto v = parseLoadOption<E>(name))
        return *v;
    throw InputError("unknown " + std::string(LoadOptionTable<E>::key) + " \"" + std::string(name) + "\" (" +
                     loadOptionChoices<E>() + ")");
}

} // namespace ascviz
