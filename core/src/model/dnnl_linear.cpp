#include "dnnl_linear.h"

#if ASCVIZ_HAVE_DNNL
#include <c10/util/intrusive_ptr.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#endif

namespace ascviz::model {

#if ASCVIZ_HAVE_DNNL
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

int64_t packBudgetBytes()
{
    static const int64_t budget = [] {
        const char* v = std::getenv("ASCVIZ_DNNL_PACK_MB");
        char* end = nullptr;
        const long long mb = v ? std::strtoll(v, &end, 10) : 4096;
        return (v && (end == v || *end != '\0' || mb < 0)) ? int64_t{4096} << 20 : static_cast<int64_t>(mb) << 20;
    }();
    return budget;
}

// One weight's packed copy: valid while the weight's storage lives and its version counter is unchanged.
struct Packed {
    explicit Packed(c10::weak_intrusive_ptr<c10::StorageImpl> s) : storage(std::move(s)) {}
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
    uint32_t version = 0;
    memory::desc md;
    memory mem;
    int64_t bytes = 0;
};

struct Primitive {
    dnnl::matmul prim;
    memory::desc weights; // the layout the primitive reads its weights in
};

class Engine {
public:
    Engine() : m_engine(dnnl::engine::kind::cpu, 0) {}

    at::Tensor run(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, DnnlAct act)
    {
        const int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
        const bool bias = b.defined();
        at::Tensor y = at::empty({rows, out}, x.options());
        memory::desc srcMd({rows, in}, DT::f32, Tag::ab);
        memory::desc dstMd({rows, out}, DT::f32, Tag::ab);
        memory::desc biasMd({1, out}, DT::f32, Tag::ab);
        // LibTorch's w [out, in] row-major is the {in, out} matrix oneDNN reads with tag ba.
        memory::desc plainMd({in, out}, DT::f32, Tag::ba);

        std::unique_lock<std::mutex> lock(m_mutex);
        const Packed* packed = packedFor(w, in, out, bias, act, rows, srcMd, dstMd, biasMd, plainMd);
        const Primitive& p = primitiveFor(rows, in, out, bias, act, packed != nullptr, srcMd, dstMd, biasMd, plainMd);
        dnnl::matmul prim = p.prim;
        memory weights = packed ? packed->mem : memory(plainMd, m_engine, const_cast<float*>(w.data_ptr<float>()));
        lock.unlock();

        memory src(srcMd, m_engine, const_cast<float*>(x.data_ptr<float>()));
        memory dst(dstMd, m_engine, y.data_ptr<float>());
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
        if (bias)
            args.emplace(DNNL_ARG_BIAS, memory(biasMd, m_engine, const_cast<float*>(b.data_ptr<float>())));
        dnnl::stream stream(m_engine);
        prim.execute(stream, args);
        stream.wait();
        return y;
    }

    int64_t packedBytes()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        dropStale();
        return m_packedBytes;
    }

private:
    using WeightKey = std::tuple<const void*, int64_t, int64_t, int64_t>;       // storage, offset, out, in
    using PrimKey = std::tuple<int64_t, int64_t, int64_t, bool, DnnlAct, bool>; // rows, in, out, bias, act, packed

    dnnl::matmul::primitive_desc describe(const memory::desc& src, const memory::desc& weights,
                                          const memory::desc& biasMd, bool bias, const memory::desc& dst, DnnlAct act)
    {
        dnnl::primitive_attr attr;
        if (act != DnnlAct::None) {
            const dnnl::algorithm alg = act == DnnlAct::GeluTanh  ? dnnl::algorithm::eltwise_gelu_tanh
                                        : act == DnnlAct::GeluErf ? dnnl::algorithm::eltwise_gelu_erf
                                                                  : dnnl::algorithm::eltwise_relu;
            dnnl::post_ops ops;
#if DNNL_VERSION_MAJOR >= 3
            ops.append_eltwise(alg, 0.f, 0.f);
#else
            ops.append_eltwise(1.f, alg, 0.f, 0.f);
#endif
            attr.set_post_ops(ops);
        }
#if DNNL_VERSION_MAJOR >= 3
        return bias ? dnnl::matmul::primitive_desc(m_engine, src, weights, biasMd, dst, attr)
                    : dnnl::matmul::primitive_desc(m_engine, src, weights, dst, attr);
#else
        return bias ? dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, biasMd, dst), attr, m_engine)
                    : dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, m_engine);
#endif
    }

    // The packed copy of w in the layout the primitive for this shape wants, made on first use; null when the
    // budget is spent (the caller then reads w in place).
    const Packed* packedFor(const at::Tensor& w, int64_t in, int64_t out, bool bias, DnnlAct act, int64_t rows,
                            const memory::desc& srcMd, const memory::desc& dstMd, const memory::desc& biasMd,
                            const memory::desc& plainMd)
    {
        const Primitive& p = primitiveFor(rows, in, out, bias, act, true, srcMd, dstMd, biasMd, plainMd);
        const WeightKey key{w.storage().unsafeGetStorageImpl(), w.storage_offset(), out, in};
        const auto version = static_cast<uint32_t>(w._version());
        auto range = m_packed.equal_range(key);
        for (auto it = range.first; it != range.second;) {
            const bool alive = it->second.storage.use_count() > 0;
            if (!alive || it->second.version != version) { // freed (address reused) or written since: drop
                m_packedBytes -= it->second.bytes;
                it = m_packed.erase(it);
                continue;
            }
            if (it->second.md == p.weights)
                return &it->second;
            ++it;
        }
        const auto bytes = static_cast<int64_t>(p.weights.get_size());
        if (m_packedBytes + bytes > packBudgetBytes()) {
            dropStale();
            if (m_packedBytes + bytes > packBudgetBytes())
                return nullptr;
        }
        Packed entry(w.storage().getWeakStorageImpl());
        entry.version = version;
        entry.md = p.weights;
        entry.mem = memory(p.weights, m_engine);
        entry.bytes = bytes;
        memory plain(plainMd, m_engine, const_cast<float*>(w.data_ptr<float>()));
        dnnl::stream stream(m_engine);
        dnnl::reorder(plain, entry.mem).execute(stream, plain, entry.mem);
        stream.wait();
        m_packedBytes += bytes;
        return &m_packed.emplace(key, std::move(entry))->second;
    }

    const Primitive& primitiveFor(int64_t rows, int64_t in, int64_t out, bool bias, DnnlAct act, bool packed,
                                  const memory::desc& srcMd, const memory::desc& dstMd, const memory::desc& biasMd,
                                  const memory::desc& plainMd)
    {
        const PrimKey key{rows, in, out, bias, act, packed};
        if (auto it = m_prims.find(key); it != m_prims.end()) {
            m_lru.splice(m_lru.begin(), m_lru, it->second.second);
            return it->second.first;
        }
        const memory::desc anyMd({in, out}, DT::f32, Tag::any);
        auto pd = describe(srcMd, packed ? anyMd : plainMd, biasMd, bias, dstMd, act);
        Primitive p{dnnl::matmul(pd), pd.weights_desc()};
        // Bounded: one entry per distinct row count and shape (a corpus of texts has many row counts).
        constexpr size_t kMaxPrimitives = 4096;
        if (m_prims.size() >= kMaxPrimitives) {
            m_prims.erase(m_lru.back());
            m_lru.pop_back();
        }
        m_lru.push_front(key);
        return m_prims.emplace(key, std::make_pair(std::move(p), m_lru.begin())).first->second.first;
    }

    void dropStale()
    {
        for (auto it = m_packed.begin(); it != m_packed.end();) {
            if (it->second.storage.use_count() == 0) {
                m_packedBytes -= it->second.bytes;
                it = m_packed.erase(it);
            } else {
                ++it;
            }
        }
    }

    dnnl::engine m_engine;
    std::mutex m_mutex;
    std::multimap<WeightKey, Packed> m_packed;
    int64_t m_packedBytes = 0;
    std::list<PrimKey> m_lru;
    std::map<PrimKey, std::pair<Primitive, std::list<PrimKey>::iterator>> m_prims;
};

Engine& engine()
{
    static Engine e;
    return e;
}

} // namespace

bool dnnlLinearCompiled()
{
    return true;
}

at::Tensor dnnlLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, DnnlAct act)
{
    if (x.dim() != 2 || w.dim() != 2 || x.size(1) != w.size(1) || !x.is_contiguous() || !w.is_contiguous() ||
        (b.defined() && (!b.is_contiguous() || b.numel() != w.size(0))))
        throw std::logic_error("dnnlLinear: expects contiguous x [rows, in], w [out, in], b [out]");
    return engine().run(x, w, b, act);
}

std::string dnnlLinearDescription()
{
    const dnnl::version_t* v = dnnl::version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) +
           " matmul, weights pre-packed on first use";
}

int64_t dnnlPackedBytes()
{
    return engine().packedBytes();
}

#else

bool dnnlLinearCompiled()
{
    return false;
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
