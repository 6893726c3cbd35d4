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

void setTopUncertainty(TokenUncertainty& u, const std::vector<double>& topLogProbs)
{
    if (topLogProbs.empty())
        return;
    const double first = topLogProbs.front();
    u.p1 = std::exp(first);
    u.margin = topLogProbs.size() > 1 ? u.p1 - std::exp(topLogProbs[1]) : u.p1;
    double sum = 0.0; // Σ_top p / p1
    for (const double v : topLogProbs)
        sum += std::exp(v - first);
    const double logZ = first + std::log(sum); // ln Σ_top p
    double h = 0.0;
    for (const double v : topLogProbs) {
        const double lq = v - logZ, q = std::exp(lq);
        if (q > 0.0)
            h -= q * lq;
    }
    u.topkEntropy = h;
}

std::vector<HeadPred> fusedHeadPreds(const at::Tensor& x, const std::vector<int32_t>& targets, int64_t vocab, int topK,
                                     const HeadColumnLogits& columns, HeadBlocks blocks)
{
    const int64_t N = x.size(0);
    std::vector<HeadPred> out(static_cast<std::size_t>(N));
    const int64_t k = std::clamp<int64_t>(topK, 0, vocab);
    // The running best lists hold at least the K of the top-K entropy (issue 59); the output keeps k of them.
    const int64_t kk = std::clamp<int64_t>(std::max<int64_t>(topK, kUncertaintyTopK), 0, vocab);
    const int64_t R = std::max<int64_t>(1, blocks.rows), C = std::max<int64_t>(1, blocks.cols);
    const int64_t nBlocks = (vocab + C - 1) / C;
    // The vocabulary is split into one contiguous part per thread, each walked by its thread alone (its products and
    // reductions single-threaded inside the one parallel region): one synchronisation per row block, not several per
    // tile, which on a loaded machine cost more than the work.
    const int64_t P = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), nBlocks));
    const auto f32 = at::TensorOptions().dtype(at::kFloat).device(x.device());
    constexpr float kInf = std::numeric_limits<float>::infinity();
    struct Part {
        at::Tensor m, s, u; // [n]: running maximum of each row's logits, Σ exp(l − m), Σ exp(l − m)·(m − l)
        std::vector<float> target;  // the target's logit where it lies in this part, else NaN
        std::vector<Ranked> best;   // the part's kk best per row
        std::vector<int64_t> above; // per row: logits above the target's band
        std::vector<std::vector<std::pair<float, int32_t>>> band; // per row: (logit, id) inside the band
    };
    for (int64_t r0 = 0; r0 < N; r0 += R) {
        const int64_t n = std::min(R, N - r0);
        const at::Tensor xr = x.narrow(0, r0, n).contiguous();
        // The rank needs the target's logit before its tile is reached (another thread may walk it): an estimate
        // from a one-column product over the same rows, and a band around it whose logits are kept and compared
        // with the tile's own value at the merge (so the rank is exact while the estimate is within the band: the
        // products differ by rounding, ~1e-6 relative, the band is 1e-3·(1 + |logit|)).
        std::vector<float> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n));
        {
            std::vector<std::pair<int32_t, int64_t>> byTarget; // (target, row)
            for (int64_t i = 0; i < n; ++i)
                byTarget.emplace_back(targets[static_cast<std::size_t>(r0 + i)], i);
            std::sort(byTarget.begin(), byTarget.end());
            at::Tensor col;
            for (std::size_t q = 0; q < byTarget.size(); ++q) {
                const auto [id, i] = byTarget[q];
                if (q == 0 || byTarget[q - 1].first != id)
                    col = columns(xr, id, 1).to(at::kFloat).to(at::kCPU).contiguous();
                const float a = col.data_ptr<float>()[i], w = 1e-3f * (1.0f + std::abs(a));
                lo[static_cast<std::size_t>(i)] = a - w;
                hi[static_cast<std::size_t>(i)] = a + w;
            }
        }
        std::vector<Part> parts(static_cast<std::size_t>(P));
        at::parallel_for(0, P, 1, [&](int64_t pa, int64_t pb) {
            for (int64_t p = pa; p < pb; ++p) {
                Part& part = parts[static_cast<std::size_t>(p)];
                part.m = at::full({n}, -kInf, f32);
                part.s = at::zeros({n}, f32);
                part.u = at::zeros({n}, f32);
                part.target.assign(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
                part.best.assign(static_cast<std::size_t>(kk > 0 ? n : 0), {});
                part.above.assign(static_cast<std::size_t>(n), 0);
                part.band.assign(static_cast<std::size_t>(n), {});
                for (int64_t blk = p * nBlocks / P; blk < (p + 1) * nBlocks / P; ++blk) {
                    const int64_t c0 = blk * C, cc = std::min(C, vocab - c0);
                    const at::Tensor t = columns(xr, c0, cc).to(at::kFloat).contiguous(); // [n, cc]: one tile
                    const float* tp = t.data_ptr<float>();
                    for (int64_t i = 0; i < n; ++i) {
                        const auto u = static_cast<std::size_t>(i);
                        const float* row = tp + i * cc;
                        const int64_t id = targets[static_cast<std::size_t>(r0 + i)];
                        if (id >= c0 && id < c0 + cc)
                            part.target[u] = row[id - c0];
                        if (kk > 0)
                            offer(part.best[u], kk, row, cc, static_cast<int32_t>(c0));
                        int64_t above = 0;
                        for (int64_t j = 0; j < cc; ++j) {
                            if (row[j] > hi[u])
                                ++above;
                            else if (row[j] > lo[u])
                                part.band[u].emplace_back(row[j], static_cast<int32_t>(c0 + j));
                        }
                        part.above[u] += above;
                    }
                    const at::Tensor mNew = at::maximum(part.m, at::amax(t, 1));
                    // The sums so far, rescaled to the new maximum (1 where the maximum stays, also while it is −∞);
                    // u also shifts by (mNew − m)·s where the maximum moves.
                    const at::Tensor rescale = at::where(part.m == mNew, at::ones_like(mNew), (part.m - mNew).exp());
                    const at::Tensor shift = at::where(part.s > 0, (mNew - part.m) * part.s, at::zeros_like(part.s));
                    const at::Tensor d = mNew.unsqueeze(1) - t; // ≥ 0
                    const at::Tensor e = (-d).exp();
                    part.u = (part.u + shift) * rescale + at::where(e > 0, e * d, at::zeros_like(e)).sum(1);
                    part.s = part.s * rescale + e.sum(1);
                    part.m = mNew;
                }
            }
        });
        // The parts merged: log-sum-exp over parts; the k best of the parts' k best (parts in id order, so a stable
        // sort keeps equal logits by id); the entropy H = ln S + U / S over the global maximum m, where
        // S = Σ exp(l − m) and U = Σ exp(l − m)·(m − l); the rank 1 + the logits above the target's, equal ones of a
        // smaller id counted as above (method.md §17: the order of the top-k, ties to the smaller id).
        std::vector<const float*> pm, ps, pu;
        std::vector<at::Tensor> keep;
        for (const Part& part : parts) {
            keep.push_back(part.m.to(at::kCPU).contiguous());
            pm.push_back(keep.back().data_ptr<float>());
            keep.push_back(part.s.to(at::kCPU).contiguous());
            ps.push_back(keep.back().data_ptr<float>());
            keep.push_back(part.u.to(at::kCPU).contiguous());
            pu.push_back(keep.back().data_ptr<float>());
        }
        for (int64_t i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            float m = -kInf, target = std::numeric_limits<float>::quiet_NaN();
            for (std::size_t p = 0; p < parts.size(); ++p) {
                m = std::max(m, pm[p][i]);
                if (!std::isnan(parts[p].target[u]))
                    target = parts[p].target[u];
            }
            double sum = 0.0, spread = 0.0;
            int64_t above = 0;
            for (std::size_t p = 0; p < parts.size(); ++p) {
                if (pm[p][i] > -kInf) {
                    const double scale = std::exp(static_cast<double>(pm[p][i]) - m);
                    sum += static_cast<double>(ps[p][i]) * scale;
                    spread += scale * (static_cast<double>(pu[p][i]) +
                                       (static_cast<double>(m) - pm[p][i]) * static_cast<double>(ps[p][i]));
                }
                above += parts[p].above[u];
                const int32_t w = targets[static_cast<std::size_t>(r0 + i)];
                for (const auto& [v, id] : parts[p].band[u])
                    above += v > target || (v == target && id < w) ? 1 : 0;
            }
            const double lse = static_cast<double>(m) + std::log(sum);
            HeadPred& pred = out[static_cast<std::size_t>(r0 + i)];
            pred.ntp = std::exp(static_cast<double>(target) - lse);
            pred.uncertainty.entropy = std::log(sum) + spread / sum;
            pred.uncertainty.rank = 1 + above;
            if (kk == 0)
                continue;
            Ranked all;
            for (const Part& part : parts)
                all.insert(all.end(), part.best[u].begin(), part.best[u].end());
            std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
            all.resize(static_cast<std::size_t>(std::min<int64_t>(kk, static_cast<int64_t>(all.size()))));
            std::vector<double> topLogProbs;
            for (std::size_t j = 0; j < all.size(); ++j) {
                const double lp = static_cast<double>(all[j].first) - lse;
                if (static_cast<int64_t>(j) < kUncertaintyTopK)
                    topLogProbs.push_back(lp);
                if (static_cast<int64_t>(j) < k)
                    pred.top.emplace_back(all[j].second, std::exp(lp));
            }
            setTopUncertainty(pred.uncertainty, topLogProbs);
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
    const int64_t kk = std::clamp<int64_t>(std::max<int64_t>(topK, kUncertaintyTopK), 0, vocab);
    for (int64_t s = 0; s < N; s += chunk) {
        const int64_t n = std::min(chunk, N - s);
        const at::Tensor logits = full(x.narrow(0, s, n)).to(at::kFloat);
        const at::Tensor lp = at::log_softmax(logits, -1); // float32
        std::vector<int64_t> t(targets.begin() + s, targets.begin() + s + n);
        const at::Tensor tgt = at::tensor(t, at::kLong).view({n, 1}).to(lp.device());
        const at::Tensor picked = lp.gather(1, tgt).exp().to(at::kCPU).contiguous();
        const float* pp = picked.data_ptr<float>();
        // Entropy H = ln S + U / S with d = max − z, S = Σ exp(−d), U = Σ exp(−d)·d (0·∞ = 0), the sums in double:
        // the fused head's form, without the float log-probabilities' rounding (~1e-6 at a 150k vocabulary).
        const at::Tensor d = std::get<0>(logits.max(-1, true)) - logits;
        const at::Tensor e = (-d).exp();
        const at::Tensor sumE = e.sum(-1, false, at::kDouble);
        const at::Tensor entropy =
            (sumE.log() + at::where(e > 0, e * d, at::zeros_like(e)).sum(-1, false, at::kDouble) / sumE)
                .to(at::kCPU)
                .contiguous();
        // The rank: 1 + the logits above the target's, equal ones of a smaller id counted as above (method.md §17).
        const at::Tensor z = logits.gather(1, tgt);
        const at::Tensor before = at::arange(vocab, logits.options().dtype(at::kLong)).unsqueeze(0) < tgt;
        const at::Tensor rank =
            ((logits > z).sum(-1) + ((logits == z) & before).sum(-1) + 1).to(at::kLong).to(at::kCPU).contiguous();
        at::Tensor topV, topP, topI; // log-probabilities, probabilities (exp in float, as always), ids
        if (kk > 0) {
            auto [v, idx] = at::topk(lp, kk, -1);
            topV = v.to(at::kCPU).contiguous();
            topP = v.exp().to(at::kCPU).contiguous();
            topI = idx.to(at::kCPU).contiguous();
        }
        for (int64_t i = 0; i < n; ++i) {
            HeadPred& pr = out[static_cast<std::size_t>(s + i)];
            pr.ntp = pp[i];
            pr.uncertainty.entropy = entropy.data_ptr<double>()[i];
            pr.uncertainty.rank = rank.data_ptr<int64_t>()[i];
            std::vector<double> topLogProbs;
            for (int64_t j = 0; j < kk; ++j) {
                const double lpj = static_cast<double>(topV.data_ptr<float>()[i * kk + j]);
                if (j < kUncertaintyTopK)
                    topLogProbs.push_back(lpj);
                if (j < k)
                    pr.top.emplace_back(static_cast<int32_t>(topI.data_ptr<int64_t>()[i * kk + j]),
                                        static_cast<double>(topP.data_ptr<float>()[i * kk + j]));
            }
            setTopUncertainty(pr.uncertainty, topLogProbs);
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
