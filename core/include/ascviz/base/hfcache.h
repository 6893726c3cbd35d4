// Models in the local Hugging Face hub cache, opened offline by their repository id (ORG/NAME).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ascviz {

// The hub cache folder in effect: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
// (the folder need not exist).
std::filesystem::path hfHubCacheDir();

// Whether `arg` has the shape of a hub repository id: "ORG/NAME", two non-empty parts of letters, digits,
// '-', '_' and '.', neither "." nor "..".
bool looksLikeRepoId(const std::string& arg);

// The snapshot folder of a cached model: <cache>/models--ORG--NAME/snapshots/<commit>, the commit named
// by refs/main, else the most recently modified snapshot; nullopt when the model is not cached.
std::optional<std::filesystem::path> findCachedModel(const std::string& repoId,
                                                     const std::filesystem::path& cacheDir = hfHubCacheDir());

// A model's display name: "ORG/NAME" for a hub-cache snapshot folder, else the folder's own name.
std::string modelNameFromDir(const std::filesystem::path& dir);

struct CachedModel {
    std::string repoId;             // ORG/NAME
    std::filesystem::path snapshot; // as findCachedModel
};
// Every cached model repository with a snapshot that holds a config.json, sorted by id.
std::vector<CachedModel> listCachedModels(const std::filesystem::path& cacheDir = hfHubCacheDir());

} // namespace ascviz
