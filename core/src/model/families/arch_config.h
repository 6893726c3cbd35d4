// The config.json readers shared by architectures.cpp (helpers, older families, the model_type table) and
// architectures_families.cpp (newer families): each fills an ArchSpec (arch.h) from a parsed config.json and
// throws ModelError naming the key and value of anything the decoder does not implement.
#pragma once
#include "decoder/arch.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace ascviz::model::cfg {

using nlohmann::json;

// ---------- helpers (architectures.cpp) ----------
const json* field(const json& j, std::initializer_list<const char*> names); // the first non-null
int64_t intField(const json& j, std::initializer_list<const char*> names, const std::string& path);
int64_t intOr(const json& j, std::initializer_list<const char*> names, int64_t fallback);
double numberOr(const json& j, std::initializer_list<const char*> names, double fallback);
bool boolOr(const json& j, const char* name, bool fallback);
Activation activationField(const json& j, std::initializer_list<const char*> names, const std::string& fallback,
                           const std::string& path);
// rope_theta / rope_parameters / rope_scaling and the partial rotary factor; legacyLongrope: "su" and "yarn"
// mean longrope (phi3).
void readRope(const json& j, ArchSpec& s, double defaultPartial, const std::string& path, bool legacyLongrope = false);
void readGpt2Style(const json& j, ArchSpec& s, const std::string& path);
void readLlamaStyle(const json& j, ArchSpec& s, const std::string& path, bool legacyLongrope = false);
void readLlama(const json& j, ArchSpec& s, const std::string& path);
void readQwenWindows(const json& j, ArchSpec& s);

// ---------- shared by the newer families (architectures_families.cpp) ----------
void readLayerWindows(const json& j, ArchSpec& s, const std::string& path,
                      const std::function<bool(int64_t)>& slidingByDefault);
json perLayerTypeRope(const json& j, double globalTheta, const char* localKey, double localDefault, double& localTheta,
                      const std::string& path);

// ---------- the newer families' readers (architectures_families.cpp) ----------
void readQwen3(const json& j, ArchSpec& s, const std::string& path);
void readMistral(const json& j, ArchSpec& s, const std::string& path);
void readPhi3(const json& j, ArchSpec& s, const std::string& path);
void readGemma(const json& j, ArchSpec& s, const std::string& path);
void readGemma2(const json& j, ArchSpec& s, const std::string& path);
void readGemma3Text(const json& j, ArchSpec& s, const std::string& path);
void readGptj(const json& j, ArchSpec& s, const std::string& path);
void readPhi(const json& j, ArchSpec& s, const std::string& path);
void readStablelm(const json& j, ArchSpec& s, const std::string& path);
void readGranite(const json& j, ArchSpec& s, const std::string& path);
void readOlmo2(const json& j, ArchSpec& s, const std::string& path);
void readSmollm3(const json& j, ArchSpec& s, const std::string& path);
void readOlmo3(const json& j, ArchSpec& s, const std::string& path);
void readSeedOss(const json& j, ArchSpec& s, const std::string& path);
void readCwm(const json& j, ArchSpec& s, const std::string& path);
void readExaone4(const json& j, ArchSpec& s, const std::string& path);

// ---------- mixture-of-experts families (architectures_moe.cpp) ----------
// The router's sizes and which layers are sparse: layer l is sparse unless listed in mlp_only_layers, and only
// where (l + 1) % decoder_sparse_step == 0 when sparseSteps (qwen2_moe / qwen3_moe; else every layer).
void readRouter(const json& j, ArchSpec& s, const std::string& path, std::initializer_list<const char*> expertsKey,
                std::initializer_list<const char*> intermediateKey, bool sparseSteps);
void readMixtral(const json& j, ArchSpec& s, const std::string& path);
void readQwen2Moe(const json& j, ArchSpec& s, const std::string& path);
void readQwen3Moe(const json& j, ArchSpec& s, const std::string& path);
// The router's sizes and which layers are sparse: layer l is sparse unless listed in mlp_only_layers, and (sparseSteps)
// only where (l + 1) % decoder_sparse_step == 0.
void readRouter(const json& j, ArchSpec& s, const std::string& path, std::initializer_list<const char*> expertsKey,
                std::initializer_list<const char*> intermediateKey, bool sparseSteps);
// ---------- hybrid families: gated DeltaNet layers beside attention (architectures_hybrid.cpp) ----------
void readQwen3Next(const json& j, ArchSpec& s, const std::string& path);
void readQwen35Text(const json& j, ArchSpec& s, const std::string& path);
void readQwen35MoeText(const json& j, ArchSpec& s, const std::string& path);
// ---------- hybrid families: gated short convolutions beside attention (architectures_lfm2.cpp) ----------
void readLfm2(const json& j, ArchSpec& s, const std::string& path);
void readLfm2Moe(const json& j, ArchSpec& s, const std::string& path);

// ---------- Mamba-2 hybrids: Mamba-2 (SSD) layers beside attention (architectures_mamba.cpp) ----------
void readGraniteMoeHybrid(const json& j, ArchSpec& s, const std::string& path);
void readNemotronH(const json& j, ArchSpec& s, const std::string& path);
// ---------- deepseek_v2 / deepseek_v3 (architectures_deepseek.cpp) ----------
void readDeepseekV2(const json& j, ArchSpec& s, const std::string& path);
void readDeepseekV3(const json& j, ArchSpec& s, const std::string& path);
void readMellum(const json& j, ArchSpec& s, const std::string& path);
void readGptOss(const json& j, ArchSpec& s, const std::string& path);
// ---------- the fourth wave (architectures_wave.cpp) ----------
void readOlmoe(const json& j, ArchSpec& s, const std::string& path);
void readGranitemoe(const json& j, ArchSpec& s, const std::string& path);
void readGranitemoeShared(const json& j, ArchSpec& s, const std::string& path);
void readArcee(const json& j, ArchSpec& s, const std::string& path);
void readGlm4(const json& j, ArchSpec& s, const std::string& path);
void readErnie45(const json& j, ArchSpec& s, const std::string& path);
void readApertus(const json& j, ArchSpec& s, const std::string& path);
void readHunyuanDense(const json& j, ArchSpec& s, const std::string& path);
void readHunyuanMoe(const json& j, ArchSpec& s, const std::string& path);
// ---------- the attention-only wave (architectures_wave2.cpp) ----------
void readFlexOlmo(const json& j, ArchSpec& s, const std::string& path);
void readErnie45Moe(const json& j, ArchSpec& s, const std::string& path);
void readGlm4Moe(const json& j, ArchSpec& s, const std::string& path);
void readDots1(const json& j, ArchSpec& s, const std::string& path);
void readMinimaxM2(const json& j, ArchSpec& s, const std::string& path);
void readCohere2(const json& j, ArchSpec& s, const std::string& path);
void readMinistral3(const json& j, ArchSpec& s, const std::string& path);
void readPhimoe(const json& j, ArchSpec& s, const std::string& path);

} // namespace ascviz::model::cfg
