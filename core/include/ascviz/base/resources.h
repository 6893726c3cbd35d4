// Where the application's bundled resources (default model, category tables, sample corpus) live.
#pragma once
#include <filesystem>
#include <string>

namespace ascviz {

// The resources folder: $ASCVIZ_RESOURCES if set, else <exe>/../share/ascviz when installed, else the
// source tree's resources/ (compiled in). Throws InputError when none exists.
std::filesystem::path resourceDir();

// The bundled default model folder (resources/models/ascviz-tiny-code).
std::filesystem::path defaultModelDir();

// Resolves a --model argument: "default" is the bundled model; an existing folder is itself; "ORG/NAME"
// that is no folder is a model in the local Hugging Face cache (hfcache.h), and an InputError naming the
// folders searched when it is not cached; anything else is returned as a folder path (the loader reports
// a missing one).
std::filesystem::path resolveModelDir(const std::string& arg);

// The bundled sample corpus (resources/corpus/stdlib-functions.jsonl).
std::filesystem::path sampleCorpus();

} // namespace ascviz
