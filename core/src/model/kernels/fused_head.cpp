#include "kernels/fused_head.h"
#include "settings/settings.h"

#include "kernels/cpu_linear.h"
#include "kernels/head_bench.h"

#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

namespace ascviz::model {
namespace {

using Ranked = std::vector<std::pair<float, int32_t>>; // (logit, id), best first; equal logits by id

// Offers the logits p[0, n) of ids first, first + 1, ... to the k best of a row. The ids arrive in increasing order,
// so a logit equal to one already kept ranks after it and never displaces it (equal values: lower id first).
void offer(Ranked& best, int64_t k, const float* p, int64_t n, int32_t first)
{
    bool full = static_cast<int64_t>(best.size()) >= k;
    float worst = full ? best.back().first : 0.0f;
    for (int64_t j = 0; j < n; ++j) {
        const float v = p[j];
        if (std::isnan(v) || (full && !(v > worst)))
            continue;
        const auto at = std::find_if(best.begin(), best.end(), [v](const auto& e) { return e.first < v; });
        best.insert(at, {v, first + static_cast<int32_t>(j)});
        if (static_cast<int64_t>(best.size()) > k)
            best.pop_back();
        full = static_cast<int64_t>(best.size()) >= k;
        worst = best.back().first;
    }
}

} // namespace

std::vector<HeadPred> fusedHeadPreds(const at::Tensor& x, const std::vector<int32_t>& targets, int64_t vocab, int topK,
                                     const HeadColumnLogits& columns, HeadBlocks blocks)
{
    const int64_t N = x.size(0);
    std::vector<HeadPred> out(static_cast<std::size_t>(N));
    const int64_t k = std::clamp<int64_t>(topK, 0, vocab);
    const int64_t R = std::max<int64_t>(1, blocks.rows), C = std::max<int64_t>(1, blocks.cols);
    const int64_t nBlocks = (vocab + C - 1) / C;
    // The vocabulary is split into one contiguous part per thread, each walked by its thread alone (its products and
    // reductions single-threaded inside the one parallel region): one synchronisation per row block, not several per
    // tile, which on a loaded machine cost more than the work.
    const int64_t P = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), nBlocks));
    const auto f32 = at::TensorOptions().dtype(at::kFloat).device(x.device());
    constexpr float kInf = std::numeric_limits<float>::infinity();
    struct Part {
        at::Tensor m, s;           // [n]: running maximum of each row's logits, Σ exp(logit − m)
        std::vector<float> target; // the target's logit where it lies in this part, else NaN
        std::vector<Ranked> best;  // the part's k best per row
    };
    for (int64_t r0 = 0; r0 < N; r0 += R) {
        const int64_t n = std::min(R, N - r0);
        const at::Tensor xr = x.narrow(0, r0, n).contiguous();
        std::vector<Part> parts(static_cast<std::size_t>(P));
        at::parallel_for(0, P, 1, [&](int64_t pa, int64_t pb) {
            for (int64_t p = pa; p < pb; ++p) {
                Part& part = parts[static_cast<std::size_t>(p)];
                part.m = at::full({n}, -kInf, f32);
                part.s = at::zeros({n}, f32);
                part.target.assign(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
                part.best.assign(static_cast<std::size_t>(k > 0 ? n : 0), {});
                for (int64_t blk = p * nBlocks / P; blk < (p + 1) * nBlocks / P; ++blk) {
                    const int64_t c0 = blk * C, cc = std::min(C, vocab - c0);
                    const at::Tensor t = columns(xr, c0, cc).to(at::kFloat).contiguous(); // [n, cc]: one tile
                    const float* tp = t.data_ptr<float>();
                    for (int64_t i = 0; i < n; ++i) {
                        const float* row = tp + i * cc;
                        const int64_t id = targets[static_cast<std::size_t>(r0 + i)];
                        if (id >= c0 && id < c0 + cc)
                            part.target[static_cast<std::size_t>(i)] = row[id - c0];
                        if (k > 0)
                            offer(part.best[static_cast<std::size_t>(i)], k, row, cc, static_cast<int32_t>(c0));
                    }
                    const at::Tensor mNew = at::maximum(part.m, at::amax(t, 1));
                    // The sum so far, rescaled to the new maximum (1 where the maximum stays, also while it is −∞).
                    const at::Tensor rescale = at::where(part.m == mNew, at::ones_like(mNew), (part.m - mNew).exp());
                    part.s = part.s * rescale + (t - mNew.unsqueeze(1)).exp().sum(1);
                    part.m = mNew;
                }
            }
        });
        // The parts merged: log-sum-exp over parts; the k best of the parts' k best (parts in id order, so a stable
        // sort keeps equal logits by id).
        std::vector<const float*> pm, ps;
        std::vector<at::Tensor> keep;
        for (const Part& part : parts) {
            keep.push_back(part.m.to(at::kCPU).contiguous());
            pm.push_back(keep.back().data_ptr<float>());
            keep.push_back(part.s.to(at::kCPU).contiguous());
            ps.push_back(keep.back().data_ptr<float>());
        }
        for (int64_t i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            float m = -kInf, target = std::numeric_limits<float>::quiet_NaN();
            for (std::size_t p = 0; p < parts.size(); ++p) {
                m = std::max(m, pm[p][i]);
                if (!std::isnan(parts[p].target[u]))
                    target = parts[p].target[u];
            }
            double sum = 0.0;
            for (std::size_t p = 0; p < parts.size(); ++p)
                if (pm[p][i] > -kInf)
                    sum += static_cast<double>(ps[p][i]) * std::exp(static_cast<double>(pm[p][i]) - m);
            const double lse = static_cast<double>(m) + std::log(sum);
            HeadPred& pred = out[static_cast<std::size_t>(r0 + i)];
            pred.ntp = std::exp(static_cast<double>(target) - lse);
            if (k == 0)
                continue;
            Ranked all;
            for (const Part& part : parts)
                all.insert(all.end(), part.best[u].begin(), part.best[u].end());
            std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
            all.resize(static_cast<std::size_t>(std::min<int64_t>(k, static_cast<int64_t>(all.size()))));
            for (const auto& [v, id] : all)
                pred.top.emplace_back(id, std::exp(static_cast<double>(v) - lse));
        }
    }
    return out;
}

std::vector<HeadPred> chunkedHeadPreds(const at::Tensor& x, const std::vector<int32_t>& targets, int64_t vocab,
                                       int topK, const std::function<at::Tensor(const at::Tensor&)>& full)
{
    std::vector<HeadPred> out(targets.size());
    const int64_t N = x.size(0);
    // [chunk, vocab] float32 stays ~16 MiB: cache-friendly, and under malloc's mmap threshold (load.cpp).
    const int64_t chunk = std::max<int64_t>(1, (int64_t(1) << 22) / vocab);
    const int64_t k = std::clamp<int64_t>(topK, 0, vocab);
    for (int64_t s = 0; s < N; s += chunk) {
        const int64_t n = std::min(chunk, N - s);
        const at::Tensor lp = at::log_softmax(full(x.narrow(0, s, n)), -1); // float32
        std::vector<int64_t> t(targets.begin() + s, targets.begin() + s + n);
        const at::Tensor tgt = at::tensor(t, at::kLong).view({n, 1}).to(lp.device());
        const at::Tensor picked = lp.gather(1, tgt).exp().to(at::kCPU).contiguous();
        const float* pp = picked.data_ptr<float>();
        at::Tensor topV, topI;
        if (k > 0) {
            auto [v, idx] = at::topk(lp, k, -1);
            topV = v.exp().to(at::kCPU).contiguous();
            topI = idx.to(at::kCPU).contiguous();
        }
        for (int64_t i = 0; i < n; ++i) {
            HeadPred& p = out[static_cast<std::size_t>(s + i)];
            p.ntp = pp[i];
            for (int64_t j = 0; j < k; ++j)
                p.top.emplace_back(static_cast<int32_t>(topI.data_ptr<int64_t>()[i * k + j]),
                                   static_cast<double>(topV.data_ptr<float>()[i * k + j]));
        }
    }
    return out;
}

double headPredsSeconds(int64_t rows, int64_t hidden, int64_t vocab, int topK, bool fused, int repeats)
{
    // Made outside inference mode, as a loaded model's weights are (the packed copies check their version counter).
    const at::Tensor w = at::randn({vocab, hidden}) * 0.05, x = at::randn({rows, hidden});
    const at::Tensor t = at::randint(vocab, {rows}, at::TensorOptions().dtype(at::kLong));
    std::vector<int32_t> targets;
    for (int64_t i = 0; i < rows; ++i)
        targets.push_back(static_cast<int32_t>(t[i].item<int64_t>()));
    c10::InferenceMode guard;
    HeadBlocks blocks; // ASCVIZ_HEAD_ROWS / ASCVIZ_HEAD_COLS: other block sizes, for this benchmark only
    if (const char* v = setting(Setting::HeadRows))
        blocks.rows = std::atoll(v);
    if (const char* v = setting(Setting::HeadCols))
        blocks.cols = std::atoll(v);
    const auto run = [&] {
        if (fused)
            return fusedHeadPreds(
                x, targets, vocab, topK,
                [&](const at::Tensor& r, int64_t c, int64_t n) {
                    return cpuAwareLinear(r, w.narrow(0, c, n), at::Tensor());
                },
                blocks);
        return chunkedHeadPreds(x, targets, vocab, topK,
                                [&](const at::Tensor& r) { return cpuAwareLinear(r, w, at::Tensor()); });
    };
    run();
    std::vector<double> s;
    for (int i = 0; i < std::max(1, repeats); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
}

bool cpuFusedHeadEnabled()
{
    const char* v = setting(Setting::CpuHead);
    return v && std::string_view(v) == "fused" && cpuFusionEnabled();
}

} // namespace ascviz::model
