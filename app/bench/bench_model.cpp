// ascviz-bench-model: NtP scoring throughput and generation latency of the libtorch runtime, on random-weight
// checkpoints with the shapes of docs/performance.md and on the bundled model, each beside a plain reference
// loop in the same run (unbatched scoring; generation that recomputes the whole sequence per token, no KV
// cache). Prints numbers; it is not a test.
//
//   ascviz-bench-model [--models tiny,gpt-neo-125M,codegen-350M-mono,qwen2.5-coder-0.5B[,codegen-2B-mono]]
//                      [--device auto|cpu|cuda] [--dtype auto|float32|float16|bfloat16] [--threads N]
//                      [--batch B] [--seq T] [--new-tokens N] [--prompt P] [--no-reference] [--keep DIR]
//   ascviz-bench-model --work score-loop|score-batch8|score-all|generate --model DIR --texts FILE.jsonl
//                      --out RESULT.json [--threads N] [--device D] [--dtype T] [--weights W] [--new-tokens N]
//                      [--prompt P]
//   ascviz-bench-model --work head [--threads N] [--batch B] [--seq T]   (the vocabulary head alone, CPU)
// The --work form runs one piece of the work that app/bench/hf_compare.py also gives Hugging Face
// transformers, so that the script can time this whole process beside HF and compare the results: each text
// ({"code": ...} per line) is tokenized here, or given as ids ({"ids": [...]} per line); score-loop scores one text per
// call (a user's loop), score-batch8 eight texts per call in file order, score-all every text in one call (the runtime
// packs them); generate continues the first P ids of each text greedily for N new tokens (EOS not stopping it). RESULT
// holds the ids and the NtPs (scoring) or the generated ids, for the script to compare, and load_s (the
// seconds LanguageModel::load took).
// Defaults are sized for a CPU run of a few minutes with an optimised BLAS (batch 2 x 128 tokens, 16 new
// tokens after 32; Debian's libtorch uses whatever libblas.so.3 is selected: the netlib reference BLAS is
// ~20x slower than OpenBLAS);
// use --batch 32 --seq 256 on a GPU to match the table in docs/performance.md.
#include "ascviz/base/error.h"
#include "ascviz/base/resources.h"
#include "ascviz/model/model.h"
#include "kernels/cpu_threads.h" // core/src/model, torch-free: applyCpuThreads
#include "kernels/head_bench.h"  // core/src/model, torch-free: the head microbenchmark

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Tensor {
    std::string name;
    std::vector<int64_t> shape;
    float scale = 0.02f; // uniform in [-scale, scale]; norms get 1
    bool ones = false;
};

struct Shape {
    std::string name;
    json config;
    std::vector<Tensor> tensors;
};

void add(std::vector<Tensor>& t, const std::string& n, std::vector<int64_t> s)
{
    t.push_back({n, std::move(s)});
}
void addNorm(std::vector<Tensor>& t, const std::string& n, int64_t h, bool bias)
{
    t.push_back({n + ".weight", {h}, 0, true});
    if (bias)
        t.push_back({n + ".bias", {h}, 0.0f});
}

Shape gptNeo125M()
{
    Shape s{"gpt-neo-125M", {}, {}};
    const int64_t H = 768, L = 12, V = 50257, P = 2048;
    s.config = {{"model_type", "gpt_neo"},
                {"vocab_size", V},
                {"hidden_size", H},
                {"num_layers", L},
                {"num_heads", 12},
                {"max_position_embeddings", P},
                {"attention_types", json::array({json::array({json::array({"global", "local"}), 6})})},
                {"window_size", 256},
                {"activation_function", "gelu_new"},
                {"layer_norm_epsilon", 1e-5},
                {"tie_word_embeddings", true},
                {"eos_token_id", 50256},
                {"bos_token_id", 50256}};
    auto& t = s.tensors;
    add(t, "transformer.wte.weight", {V, H});
    add(t, "transformer.wpe.weight", {P, H});
    for (int64_t l = 0; l < L; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        addNorm(t, p + "ln_1", H, true);
        for (const char* n : {"q_proj", "k_proj", "v_proj"})
            add(t, p + "attn.attention." + n + ".weight", {H, H});
        add(t, p + "attn.attention.out_proj.weight", {H, H});
        add(t, p + "attn.attention.out_proj.bias", {H});
        addNorm(t, p + "ln_2", H, true);
        add(t, p + "mlp.c_fc.weight", {4 * H, H});
        add(t, p + "mlp.c_fc.bias", {4 * H});
        add(t, p + "mlp.c_proj.weight", {H, 4 * H});
        add(t, p + "mlp.c_proj.bias", {H});
    }
    addNorm(t, "transformer.ln_f", H, true);
    return s;
}

Shape codegen(const std::string& name, int64_t H, int64_t L, int64_t heads, int64_t rot)
{
    Shape s{name, {}, {}};
    const int64_t V = 51200, P = 2048;
    s.config = {{"model_type", "codegen"},
                {"vocab_size", V},
                {"n_embd", H},
                {"n_layer", L},
                {"n_head", heads},
                {"rotary_dim", rot},
                {"n_positions", P},
                {"n_ctx", P},
                {"activation_function", "gelu_new"},
                {"layer_norm_epsilon", 1e-5},
                {"tie_word_embeddings", false},
                {"eos_token_id", 50256},
                {"bos_token_id", 1}};
    auto& t = s.tensors;
    add(t, "transformer.wte.weight", {V, H});
    for (int64_t l = 0; l < L; ++l) {
        const std::string p = "transformer.h." + std::to_string(l) + ".";
        addNorm(t, p + "ln_1", H, true);
        add(t, p + "attn.qkv_proj.weight", {3 * H, H});
        add(t, p + "attn.out_proj.weight", {H, H});
        add(t, p + "mlp.fc_in.weight", {4 * H, H});
        add(t, p + "mlp.fc_in.bias", {4 * H});
        add(t, p + "mlp.fc_out.weight", {H, 4 * H});
        add(t, p + "mlp.fc_out.bias", {H});
    }
    addNorm(t, "transformer.ln_f", H, true);
    add(t, "lm_head.weight", {V, H});
    add(t, "lm_head.bias", {V});
    return s;
}

Shape qwen05B()
{
    Shape s{"qwen2.5-coder-0.5B", {}, {}};
    const int64_t H = 896, L = 24, V = 151936, I = 4864, heads = 14, kv = 2, hd = 64;
    s.config = {{"model_type", "qwen2"},
                {"vocab_size", V},
                {"hidden_size", H},
                {"num_hidden_layers", L},
                {"num_attention_heads", heads},
                {"num_key_value_heads", kv},
                {"intermediate_size", I},
                {"max_position_embeddings", 32768},
                {"rope_theta", 1000000.0},
                {"rms_norm_eps", 1e-6},
                {"hidden_act", "silu"},
                {"tie_word_embeddings", true},
                {"eos_token_id", 151643},
                {"bos_token_id", 151643}};
    auto& t = s.tensors;
    add(t, "model.embed_tokens.weight", {V, H});
    for (int64_t l = 0; l < L; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        addNorm(t, p + "input_layernorm", H, false);
        addNorm(t, p + "post_attention_layernorm", H, false);
        add(t, p + "self_attn.q_proj.weight", {heads * hd, H});
        add(t, p + "self_attn.q_proj.bias", {heads * hd});
        add(t, p + "self_attn.k_proj.weight", {kv * hd, H});
        add(t, p + "self_attn.k_proj.bias", {kv * hd});
        add(t, p + "self_attn.v_proj.weight", {kv * hd, H});
        add(t, p + "self_attn.v_proj.bias", {kv * hd});
        add(t, p + "self_attn.o_proj.weight", {H, heads * hd});
        add(t, p + "mlp.gate_proj.weight", {I, H});
        add(t, p + "mlp.up_proj.weight", {I, H});
        add(t, p + "mlp.down_proj.weight", {H, I});
    }
    addNorm(t, "model.norm", H, false);
    return s;
}

// Writes config.json, a bfloat16 model.safetensors of uniform random weights and a tokenizer.json.
void writeCheckpoint(const Shape& s, const fs::path& dir)
{
    fs::create_directories(dir);
    std::ofstream(dir / "config.json") << s.config.dump(1);
    fs::copy_file(fs::path(ASCVIZ_BENCH_TOKENIZER), dir / "tokenizer.json", fs::copy_options::overwrite_existing);
    json header = json::object();
    uint64_t offset = 0;
    for (const auto& t : s.tensors) {
        uint64_t n = 1;
        for (auto d : t.shape)
            n *= static_cast<uint64_t>(d);
        header[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {offset, offset + 2 * n}}};
        offset += 2 * n;
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    const uint64_t len = h.size();
    for (int i = 0; i < 8; ++i)
        out.put(static_cast<char>((len >> (8 * i)) & 0xFF));
    out << h;
    uint64_t state = 0x9E3779B97F4A7C15ull;
    std::vector<uint16_t> buf;
    for (const auto& t : s.tensors) {
        uint64_t n = 1;
        for (auto d : t.shape)
            n *= static_cast<uint64_t>(d);
        buf.resize(n);
        for (uint64_t i = 0; i < n; ++i) {
            float v;
            if (t.ones) {
                v = 1.0f;
            } else {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                v = t.scale * (static_cast<float>(state >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f);
            }
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            buf[i] = static_cast<uint16_t>(bits >> 16);
        }
        out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(2 * n));
    }
    if (!out)
        throw ascviz::Error("cannot write " + (dir / "model.safetensors").string());
}

double seconds(std::chrono::steady_clock::time_point a)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

struct Options {
    std::vector<std::string> models = {"tiny", "gpt-neo-125M", "codegen-350M-mono", "qwen2.5-coder-0.5B"};
    ascviz::LoadOptions load;
    int batch = 2, seq = 128, newTokens = 16, prompt = 32;
    bool reference = true;
    std::string keep;
};

void bench(const std::string& name, const fs::path& dir, const Options& o)
{
    auto t0 = std::chrono::steady_clock::now();
    auto m = ascviz::LanguageModel::load(dir, o.load);
    const double loadS = seconds(t0);
    const auto& info = m->info();
    std::mt19937 rng(42);
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(std::min<int64_t>(info.vocabSize, 50000) - 1));
    std::vector<std::vector<int32_t>> batch(static_cast<std::size_t>(o.batch));
    for (auto& s : batch)
        for (int i = 0; i < o.seq; ++i)
            s.push_back(pick(rng));
    const double tokens = static_cast<double>(o.batch) * o.seq;

    // Warm-up: every measured call runs once untimed first, so that one-off costs (CUDA context, cuBLAS
    // handles, lazily loaded kernels, allocator growth) are not counted.
    m->scoreIds(batch);
    t0 = std::chrono::steady_clock::now();
    m->scoreIds(batch);
    const double scoreS = seconds(t0);
    double refScoreS = 0;
    if (o.reference) {
        m->scoreIds({batch[0]});
        t0 = std::chrono::steady_clock::now();
        for (const auto& s : batch)
            m->scoreIds({s});
        refScoreS = seconds(t0);
    }

    std::vector<int32_t> prompt(batch[0].begin(), batch[0].begin() + std::min(o.prompt, o.seq));
    ascviz::GenerationOptions g;
    g.maxNewTokens = o.newTokens;
    g.stopAtEos = false;
    {
        ascviz::GenerationOptions w = g;
        w.maxNewTokens = std::min(4, g.maxNewTokens);
        m->generateIds(prompt, w);
    }
    t0 = std::chrono::steady_clock::now();
    const auto out = m->generateIds(prompt, g);
    const double genMs = seconds(t0) * 1000.0 / static_cast<double>(std::max<std::size_t>(1, out.size()));
    double refGenMs = 0;
    if (o.reference) {
        g.useCache = false;
        ascviz::GenerationOptions w = g;
        w.maxNewTokens = std::min(4, g.maxNewTokens);
        m->generateIds(prompt, w);
        t0 = std::chrono::steady_clock::now();
        const auto out2 = m->generateIds(prompt, g);
        refGenMs = seconds(t0) * 1000.0 / static_cast<double>(std::max<std::size_t>(1, out2.size()));
        if (out2 != out)
            std::cerr << "warning: " << name << ": cached and recomputed greedy outputs differ\n";
    }
    std::printf("%-20s %6.0fM params  %s/%s  load %5.1fs | score %dx%d: %9.0f tok/s", name.c_str(),
                static_cast<double>(info.parameters) / 1e6, info.device.c_str(), info.dtype.c_str(), loadS, o.batch,
                o.seq, tokens / scoreS);
    if (o.reference)
        std::printf(" (unbatched %8.0f tok/s, x%.2f)", tokens / refScoreS, refScoreS / scoreS);
    std::printf(" | generate %d after %zu: %8.2f ms/token", o.newTokens, prompt.size(), genMs);
    if (o.reference)
        std::printf(" (no KV cache %8.2f ms/token, x%.2f)", refGenMs, refGenMs / genMs);
    std::printf("\n");
    std::fflush(stdout);
}

// One line per text: {"code": "..."} is tokenized by the model's tokenizer, {"ids": [...]} is taken as token ids
// as they are (app/bench/real_shapes.py: random-weight checkpoints at real shapes have no real tokenizer).
std::vector<std::vector<int32_t>> readIds(const fs::path& file, const ascviz::LanguageModel& m)
{
    std::ifstream in(file);
    if (!in)
        throw ascviz::Error("cannot read " + file.string());
    std::vector<std::vector<int32_t>> ids;
    for (std::string line; std::getline(in, line);) {
        if (line.empty())
            continue;
        const auto j = json::parse(line);
        if (j.contains("ids"))
            ids.push_back(j.at("ids").get<std::vector<int32_t>>());
        else
            ids.push_back(m.tokenizer().encode(j.at("code").get<std::string>(), false).ids);
    }
    if (ids.empty())
        throw ascviz::Error(file.string() + " has no texts");
    return ids;
}

// One piece of hf_compare.py's work (see the header); writes {"ids": [[...]], "ntp": [[...]]} for scoring
// (ntp[i][0] is null) or {"prompt": [[...]], "generated": [[...]]} for generation.
int runWork(const std::string& work, const fs::path& modelDir, const fs::path& textsFile, const fs::path& outFile,
            const Options& o)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto m = ascviz::LanguageModel::load(modelDir, o.load);
    const double loadS = seconds(t0);
    const auto ids = readIds(textsFile, *m);
    json out;
    if (work == "generate") {
        ascviz::GenerationOptions g;
        g.maxNewTokens = o.newTokens;
        g.stopAtEos = false;
        g.topAlternatives = 0;
        json prompts = json::array(), gen = json::array();
        for (const auto& s : ids) {
            if (s.empty())
                continue;
            std::vector<int32_t> p(s.begin(),
                                   s.begin() + std::min<std::size_t>(s.size(), static_cast<std::size_t>(o.prompt)));
            gen.push_back(m->generateIds(p, g));
            prompts.push_back(p);
        }
        out = {{"prompt", prompts}, {"generated", gen}};
    } else {
        std::size_t group = 0;
        if (work == "score-loop")
            group = 1;
        else if (work == "score-batch8")
            group = 8;
        else if (work == "score-all")
            group = ids.size();
        else
            throw ascviz::Error("unknown --work " + work + " (score-loop, score-batch8, score-all or generate)");
        json ntp = json::array();
        for (std::size_t g = 0; g < ids.size(); g += group) {
            const std::vector<std::vector<int32_t>> part(
                ids.begin() + static_cast<std::ptrdiff_t>(g),
                ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), g + group)));
            for (const auto& row : m->scoreIds(part)) {
                json r = json::array();
                for (const auto& p : row)
                    r.push_back(p ? json(*p) : json(nullptr));
                ntp.push_back(std::move(r));
            }
        }
        out = {{"ids", ids}, {"ntp", ntp}};
    }
    out["load_s"] = loadS;
    std::ofstream(outFile) << out.dump();
    return 0;
}

} // namespace

// The vocabulary head alone (--work head): a random [151936, 896] head (Qwen2.5-Coder-0.5B's) on --batch x --seq
// random hidden rows, NtP + top-5 and NtP alone, through the fused head and the log_softmax reference.
int runHead(const Options& o)
{
    const int threads = o.load.threads > 0 ? o.load.threads : 2;
    ascviz::applyCpuThreads(threads);
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20); // as loading a model on the CPU sets it (load.cpp)
    ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
    const int64_t rows = static_cast<int64_t>(o.batch) * o.seq, hidden = 896, vocab = 151936;
    std::printf("head [%lld, %lld] on %lld rows, %d threads (median of 3):\n", static_cast<long long>(vocab),
                static_cast<long long>(hidden), static_cast<long long>(rows), threads);
    for (const int k : {5, 0})
        for (const bool fused : {false, true}) {
            const double s = ascviz::model::headPredsSeconds(rows, hidden, vocab, k, fused, 3);
            std::printf("  %-28s top-%d: %8.3f s  %8.0f rows/s\n", fused ? "fused" : "log_softmax reference", k, s,
                        static_cast<double>(rows) / s);
        }
    return 0;
}

int main(int argc, char** argv)
{
    Options o;
    o.load.device = ascviz::Device::Auto;
    std::string work;
    fs::path workModel, workTexts, workOut;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto next = [&]() -> std::string {
                if (i + 1 >= argc)
                    throw ascviz::Error(a + " needs a value");
                return argv[++i];
            };
            if (a == "--models") {
                o.models.clear();
                std::stringstream ss(next());
                for (std::string m; std::getline(ss, m, ',');)
                    o.models.push_back(m);
            } else if (a == "--device")
                o.load.device = ascviz::requireLoadOption<ascviz::Device>(next());
            else if (a == "--dtype")
                o.load.dtype = ascviz::requireLoadOption<ascviz::Dtype>(next());
            else if (a == "--threads")
                o.load.threads = std::stoi(next());
            else if (a == "--weights")
                o.load.weights = ascviz::requireLoadOption<ascviz::Weights>(next());
            else if (a == "--batch")
                o.batch = std::stoi(next());
            else if (a == "--seq")
                o.seq = std::stoi(next());
            else if (a == "--new-tokens")
                o.newTokens = std::stoi(next());
            else if (a == "--prompt")
                o.prompt = std::stoi(next());
            else if (a == "--no-reference")
                o.reference = false;
            else if (a == "--keep")
                o.keep = next();
            else if (a == "--work")
                work = next();
            else if (a == "--model")
                workModel = next();
            else if (a == "--texts")
                workTexts = next();
            else if (a == "--out")
                workOut = next();
            else {
                std::cerr
                    << "usage: ascviz-bench-model [--models LIST] [--device D] [--dtype T] [--threads N] [--batch B]"
                       " [--seq T] [--new-tokens N] [--prompt P] [--no-reference] [--keep DIR]\n"
                       "       ascviz-bench-model --work score-loop|score-batch8|score-all|generate --model DIR"
                       " --texts FILE.jsonl --out RESULT.json [--threads N] [--weights auto|float32|checkpoint]"
                       " [--new-tokens N] [--prompt P]\n"
                       "       ascviz-bench-model --work head [--threads N] [--batch B] [--seq T]\n";
                return 2;
            }
        }
        if (o.batch < 1 || o.seq < 2 || o.prompt < 1)
            throw ascviz::Error("--batch, --seq and --prompt must be positive (seq >= 2)");
        if (work == "head")
            return runHead(o);
        if (!work.empty()) {
            if (workModel.empty() || workTexts.empty() || workOut.empty())
                throw ascviz::Error("--work needs --model, --texts and --out");
            return runWork(work, workModel == "default" ? ascviz::defaultModelDir() : workModel, workTexts, workOut, o);
        }
        std::printf("libtorch %s, CUDA %s\n", ascviz::torchVersion().c_str(),
                    ascviz::cudaAvailable() ? "available" : "not available");
        const fs::path work = o.keep.empty()
                                  ? fs::temp_directory_path() / ("ascviz-bench-model-" + std::to_string(::getpid()))
                                  : fs::path(o.keep);
        for (const auto& name : o.models) {
            if (name == "tiny") {
                bench("ascviz-tiny-code", ascviz::defaultModelDir(), o);
                continue;
            }
            Shape s;
            if (name == "gpt-neo-125M")
                s = gptNeo125M();
            else if (name == "codegen-350M-mono")
                s = codegen(name, 1024, 20, 16, 32);
            else if (name == "codegen-2B-mono")
                s = codegen(name, 2560, 32, 32, 64);
            else if (name == "qwen2.5-coder-0.5B")
                s = qwen05B();
            else
                throw ascviz::Error("unknown model shape " + name);
            const fs::path dir = work / s.name;
            if (!fs::exists(dir / "model.safetensors")) {
                const auto t0 = std::chrono::steady_clock::now();
                writeCheckpoint(s, dir);
                std::fprintf(stderr, "wrote random %s in %.1fs\n", s.name.c_str(), seconds(t0));
            }
            bench(s.name + " (random)", dir, o);
            if (o.keep.empty())
                fs::remove_all(dir);
        }
        if (o.keep.empty())
            fs::remove_all(work);
    } catch (const std::exception& e) {
        std::cerr << "ascviz-bench-model: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
