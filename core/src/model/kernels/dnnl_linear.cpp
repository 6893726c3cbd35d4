#include "kernels/dnnl_linear.h"
#include "settings/settings.h"

#if ASCVIZ_HAVE_DNNL
#include "formats/safetensors.h"
#include "kernels/dnnl_gemm.h"

#include <c10/util/intrusive_ptr.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>
#endif

namespace ascviz::model {

#if ASCVIZ_HAVE_DNNL
namespace {

int64_t packBudgetBytes()
{
    static const int64_t budget = [] {
        const char* v = setting(Setting::DnnlPackMb);
        char* end = nullptr;
        const long long mb = v ? std::strtoll(v, &end, 10) : 4096;
        return (v && (end == v || *end != '\0' || mb < 0)) ? int64_t{4096} << 20 : static_cast<int64_t>(mb) << 20;
    }();
    return budget;
}

// One weight's packed copies: valid while the weight's storage lives (the weak reference keeps the storage
// object, not its data, so its address cannot be reused meanwhile) and its version counter is unchanged.
struct Entry {
    explicit Entry(c10::weak_intrusive_ptr<c10::StorageImpl> s) : storage(std::move(s)) {}
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
    uint32_t version = 0;
    bool bf16 = false; // --dtype bfloat16-matmul
    std::shared_ptr<DnnlPackedWeights> packed = std::make_shared<DnnlPackedWeights>();
};

struct PackedRef {
    std::shared_ptr<DnnlPackedWeights> packed; // null: read the weight in place
    bool bf16 = false;
};

class Packs {
public:
    // The packed copies of w (new when w is new or written since); no copies when the budget is spent. `markBf16`:
    // from now on w's products are computed in bfloat16 (whatever the budget).
    PackedRef of(const at::Tensor& w, bool markBf16 = false)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const Key key{w.storage().unsafeGetStorageImpl(), w.storage_offset(), w.size(0), w.size(1)};
        const auto version = static_cast<uint32_t>(w._version());
        bool bf16 = markBf16;
        if (auto it = m_entries.find(key); it != m_entries.end()) {
            if (it->second.storage.use_count() > 0 && it->second.version == version) {
                it->second.bf16 = it->second.bf16 || markBf16;
                return {it->second.packed, it->second.bf16};
            }
            bf16 = bf16 || (it->second.bf16 && it->second.storage.use_count() > 0);
            m_entries.erase(it);
        }
        dropStale();
        int64_t held = 0;
        for (const auto& [k, e] : m_entries)
            held += e.packed->bytes();
        if (!bf16 && held + w.numel() * static_cast<int64_t>(sizeof(float)) > packBudgetBytes())
            return {};
        Entry e(w.storage().getWeakStorageImpl());
        e.version = version;
        e.bf16 = bf16;
        return {m_entries.emplace(key, std::move(e)).first->second.packed, bf16};
    }

    int64_t bytes()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        dropStale();
        int64_t held = 0;
        for (const auto& [k, e] : m_entries)
            held += e.packed->bytes();
        return held;
    }

private:
    using Key = std::tuple<const void*, int64_t, int64_t, int64_t>; // storage, offset, out, in

    void dropStale()
    {
        for (auto it = m_entries.begin(); it != m_entries.end();)
            it = it->second.storage.use_count() == 0 ? m_entries.erase(it) : std::next(it);
    }

    std::mutex m_mutex;
    std::map<Key, Entry> m_entries;
};

Packs& packs()
{
    static Packs p;
    return p;
}

// The products oneDNN could not create or execute, computed by LibTorch instead (the first reason is kept for
// --version): each is tried once.
class Failures {
public:
    using Key = std::tuple<int64_t, int64_t, int64_t, DnnlAct, bool>; // rows, in, out, act, bf16

    bool known(const Key& k)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_keys.count(k) > 0;
    }
    void add(const Key& k, const std::string& why)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_keys.insert(k).second && m_first.empty())
            m_first = why;
    }
    std::string note()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_keys.empty())
            return {};
        return "; LibTorch's linear layer for " + std::to_string(m_keys.size()) +
               (m_keys.size() == 1 ? " shape" : " shapes") + " oneDNN could not run (" + m_first + ")";
    }

private:
    std::mutex m_mutex;
    std::set<Key> m_keys;
    std::string m_first;
};

Failures& failures()
{
    static Failures f;
    return f;
}

} // namespace

bool dnnlLinearAvailable()
{
    return dnnlAvailable();
}

std::string dnnlLinearUnavailableReason()
{
    return dnnlUnavailableReason();
}

at::Tensor dnnlLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, DnnlAct act)
{
    if (x.dim() != 2 || w.dim() != 2 || x.size(1) != w.size(1) || !x.is_contiguous() || !w.is_contiguous() ||
        (b.defined() && (!b.is_contiguous() || b.numel() != w.size(0))))
        throw std::logic_error("dnnlLinear: expects contiguous x [rows, in], w [out, in], b [out]");
    // The shared_ptr keeps the packed copies alive through the call even if the weight is dropped meanwhile.
    const PackedRef packed = packs().of(w);
    const Failures::Key key{x.size(0), x.size(1), w.size(0), act, packed.bf16};
    if (failures().known(key))
        return {};
    at::Tensor y = at::empty({x.size(0), w.size(0)}, x.options());
    std::string why;
    const int64_t packedBefore = packed.packed ? packed.packed->bytes() : 0;
    if (!dnnlMatmul(x.data_ptr<float>(), x.size(0), x.size(1), w.data_ptr<float>(), w.size(0),
                    b.defined() ? b.data_ptr<float>() : nullptr, act, y.data_ptr<float>(), packed.packed.get(),
                    packed.bf16, &why)) {
        failures().add(key, why);
        return {};
    }
    // A weight taken from a safetensors mapping (weights.h) and packed just now is read from its packed copy from now
    // on: its pages leave the resident set (read again from the page cache if LibTorch ever reads it), so the process
    // holds one copy of it, not two. Never for a weight written since it was mapped (version 0 = never written through
    // LibTorch): its written pages are private copies that dropping would revert to the file.
    if (packed.packed && packed.packed->bytes() > packedBefore && w._version() == 0)
        dropFileMappedPages(w.data_ptr(), static_cast<std::size_t>(w.numel()) * sizeof(float));
    return y;
}

void dnnlMarkBf16(const at::Tensor& w)
{
    if (!dnnlHasBf16())
        throw std::runtime_error("bfloat16-matmul needs a CPU with AVX512-BF16 or AMX; oneDNN finds " + dnnlCpuIsa());
    if (w.dim() == 2 && w.scalar_type() == at::kFloat && w.device().is_cpu())
        packs().of(w, true);
}

bool dnnlBf16Available()
{
    return dnnlHasBf16();
}

std::string dnnlCpuIsaName()
{
    return dnnlCpuIsa();
}

at::Tensor dnnlAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                      double scale)
{
    DnnlAttention a;
    a.B = q.size(0), a.H = q.size(1), a.T = q.size(2), a.S = k.size(2), a.D = q.size(3);
    a.scale = static_cast<float>(scale);
    for (int i = 0; i < 4; ++i)
        a.q[i] = q.stride(i), a.k[i] = k.stride(i), a.v[i] = v.stride(i);
    at::Tensor additive;
    if (mask.defined()) {
        if (mask.dim() != 4 || mask.size(1) != 1 || mask.size(2) != a.T || mask.size(3) != a.S ||
            (mask.size(0) != 1 && mask.size(0) != a.B) || mask.scalar_type() != at::kBool)
            return {};
        additive = at::zeros(mask.sizes(), q.options())
                       .masked_fill_(mask.logical_not(), std::numeric_limits<float>::lowest())
                       .contiguous();
        a.maskBatch = mask.size(0);
    }
    at::Tensor scores = at::empty({a.B, a.H, a.T, a.S}, q.options());
    at::Tensor out = at::empty({a.B, a.T, a.H, a.D}, q.options());
    const float* mp = additive.defined() ? additive.data_ptr<float>() : nullptr;
    if (!dnnlAttention(a, DnnlAttentionPhase::Scores, q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(), mp,
                       scores.data_ptr<float>(), out.data_ptr<float>()))
        return {};
    const at::Tensor probs = at::softmax(scores, -1).contiguous();
    if (!dnnlAttention(a, DnnlAttentionPhase::Values, q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(), mp,
                       probs.data_ptr<float>(), out.data_ptr<float>()))
        return {};
    return out.transpose(1, 2);
}

std::string dnnlLinearDescription()
{
    return dnnlVersionString() + " matmul (" + dnnlCpuIsa() + "), weights pre-packed (at load, or on first use)";
}

std::string dnnlLinearFallbackNote()
{
    return failures().note();
}

int64_t dnnlPackedBytes()
{
    return packs().bytes();
}

#else

void dnnlMarkBf16(const at::Tensor&)
{
    throw std::runtime_error("bfloat16-matmul needs the system oneDNN (libdnnl-dev), which this build lacks");
}

bool dnnlBf16Available()
{
    return false;
}

std::string dnnlCpuIsaName()
{
    return "unknown (no oneDNN)";
}

at::Tensor dnnlAttend(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, double)
{
    return {};
}

bool dnnlLinearAvailable()
{
    return false;
}

std::string dnnlLinearUnavailableReason()
{
    return "this build has no oneDNN (libdnnl-dev was not found by CMake)";
}

std::string dnnlLinearFallbackNote()
{
    return "";
}

at::Tensor dnnlLinear(const at::Tensor&, const at::Tensor&, const at::Tensor&, DnnlAct)
{
    throw std::logic_error("dnnlLinear: this build has no oneDNN (libdnnl-dev was not found by CMake)");
}

std::string dnnlLinearDescription()
{
    return "";
}

int64_t dnnlPackedBytes()
{
    return 0;
}

#endif

} // namespace ascviz::model
