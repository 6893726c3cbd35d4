// Galeras prompt treatments (method.md §12, docs/galeras.md): a control and treatments, each a prompt
// template, read from JSON:
//   {"control": {"name": "control", "template": "..."}, "treatments": [{"name": "T1", "template": "..."}, ...],
//    "description": "..."}
// Placeholders: {code} (the testbed's partial code, required in every template), {signature}, {docstring},
// {language} (the language's display name); "{{" and "}}" are literal braces. A completion model continues
// the prompt, so a template normally ends with {code}.
#pragma once
#include "ascviz/galeras/testbed.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace ascviz {

struct Treatment {
    std::string name;
    std::string tmpl;
};

struct TreatmentSet {
    Treatment control;
    std::vector<Treatment> treatments;
    std::string description;
    std::vector<Treatment> all() const; // control first
    std::string fingerprint() const;    // FNV-1a 64 over names and templates (for --resume)
};

// Throws InputError naming `where` (and the treatment) for malformed JSON, a missing field, a duplicate name,
// a template without {code}, an unknown placeholder or an unmatched brace.
TreatmentSet parseTreatments(const std::string& json, const std::string& where);
// The file read by readTreatments() is at most this big (a handful of prompt templates; /dev/zero or a pipe
// without end is refused, naming the file and the limit).
inline constexpr std::size_t kMaxTreatmentsFileBytes = std::size_t{4} << 20;
TreatmentSet readTreatments(const std::filesystem::path& path);

// The prompt of a template for a testbed item.
std::string renderPrompt(const std::string& tmpl, const TestbedItem& item);

} // namespace ascviz
