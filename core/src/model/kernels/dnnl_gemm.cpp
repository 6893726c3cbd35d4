// The oneDNN module (libascviz_dnnl.so): Debian's oneDNN's matmul on plain float32 arrays behind the C table of
// dnnl_abi.h. It is loaded by dnnl_module.cpp (why a module and RTLD_DEEPBIND: dnnl_abi.h) and sees no LibTorch.
#include "kernels/dnnl_abi.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ascviz::model {

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

namespace {

enum class DnnlAct { None, GeluTanh, GeluErf, Relu }; // the table's act codes 0..3

// The packed copies of one weight matrix w [out, in] in the blocked layouts the primitives ask for (one per
// layout; in practice one), made on first use.
struct Packed {
    std::vector<std::pair<memory::desc, memory>> layouts;
    int64_t bytes = 0;
};

class Engine {
public:
    Engine() : m_engine(dnnl::engine::kind::cpu, 0) {}

    void run(const float* x, int64_t rows, int64_t in, const float* w, int64_t out, const float* b, DnnlAct act,
             float* y, Packed* packed, bool bf16)
    {
        const memory::desc srcF32({rows, in}, DT::f32, Tag::ab);
        const memory::desc srcMd({rows, in}, bf16 ? DT::bf16 : DT::f32, Tag::ab);
        const memory::desc dstMd({rows, out}, DT::f32, Tag::ab);
        const memory::desc biasMd({1, out}, DT::f32, Tag::ab);
        // w [out, in] row-major is the {in, out} matrix oneDNN reads with tag ba.
        const memory::desc plainMd({in, out}, DT::f32, Tag::ba);

        std::unique_lock<std::mutex> lock(m_mutex);
        const Primitive& p =
            primitiveFor(rows, in, out, b != nullptr, act, packed != nullptr, bf16, srcMd, dstMd, biasMd, plainMd);
        dnnl::matmul prim = p.prim;
        memory weights;
        if (packed) {
            weights = packedFor(*packed, p.weights, w, plainMd);
        } else {
            weights = memory(plainMd, m_engine, const_cast<float*>(w));
        }
        lock.unlock();

        memory src(srcF32, m_engine, const_cast<float*>(x));
        dnnl::stream stream(m_engine);
        if (bf16) { // x rounded to bfloat16 for the product
            memory rounded(srcMd, m_engine);
            dnnl::reorder(src, rounded).execute(stream, src, rounded);
            src = rounded;
        }
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, memory(dstMd, m_engine, y)}};
        if (b)
            args.emplace(DNNL_ARG_BIAS, memory(biasMd, m_engine, const_cast<float*>(b)));
        prim.execute(stream, args);
        stream.wait();
    }

private:
    struct Primitive {
        dnnl::matmul prim;
        memory::desc weights; // the layout the primitive reads its weights in
    };
    using Key =
        std::tuple<int64_t, int64_t, int64_t, bool, DnnlAct, bool, bool>; // rows, in, out, bias, act, packed, bf16

    memory packedFor(Packed& pw, const memory::desc& layout, const float* w, const memory::desc& plainMd)
    {
        for (const auto& [md, mem] : pw.layouts)
            if (md == layout)
                return mem;
        memory mem(layout, m_engine);
        memory plain(plainMd, m_engine, const_cast<float*>(w));
        dnnl::stream stream(m_engine);
        dnnl::reorder(plain, mem).execute(stream, plain, mem);
        stream.wait();
        pw.layouts.emplace_back(layout, mem);
        pw.bytes += static_cast<int64_t>(layout.get_size());
        return mem;
    }

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

    const Primitive& primitiveFor(int64_t rows, int64_t in, int64_t out, bool bias, DnnlAct act, bool packed, bool bf16,
                                  const memory::desc& srcMd, const memory::desc& dstMd, const memory::desc& biasMd,
                                  const memory::desc& plainMd)
    {
        const Key key{rows, in, out, bias, act, packed, bf16};
        if (auto it = m_prims.find(key); it != m_prims.end()) {
            m_lru.splice(m_lru.begin(), m_lru, it->second.second);
            return it->second.first;
        }
        const memory::desc anyMd({in, out}, bf16 ? DT::bf16 : DT::f32, Tag::any);
        auto pd = describe(srcMd, packed ? anyMd : plainMd, biasMd, bias, dstMd, act);
        Primitive p{dnnl::matmul(pd), pd.weights_desc()};
        // Bounded: one entry per row count and shape (a corpus of texts has many row counts).
        constexpr size_t kMaxPrimitives = 4096;
        if (m_prims.size() >= kMaxPrimitives) {
            m_prims.erase(m_lru.back());
            m_lru.pop_back();
        }
        m_lru.push_front(key);
        return m_prims.emplace(key, std::make_pair(std::move(p), m_lru.begin())).first->second.first;
    }

    dnnl::engine m_engine;
    std::mutex m_mutex;
    std::list<Key> m_lru;
    std::map<Key, std::pair<Primitive, std::list<Key>::iterator>> m_prims;
};

// The two products of one attention shape (dnnl_gemm.h, dnnlAttention).
struct AttentionPrimitives {
    memory::desc q, kT, scores, mask, v, out;
    dnnl::matmul qk, pv;
};

class AttentionCache {
public:
    bool run(const AscvizDnnlAttention& a, int phase, const float* q, const float* k, const float* v, const float* mask,
             float* scores, float* out)
    {
#if DNNL_VERSION_MAJOR >= 3
        (void)a, (void)phase, (void)q, (void)k, (void)v, (void)mask, (void)scores, (void)out;
        return false;
#else
        std::unique_lock<std::mutex> lock(m_mutex);
        const AttentionPrimitives& p = primitivesFor(a);
        AttentionPrimitives run = p;
        lock.unlock();
        auto mem = [this](const memory::desc& md, const float* data) {
            return memory(md, m_engine, const_cast<float*>(data));
        };
        dnnl::stream stream(m_engine);
        memory sc = mem(run.scores, scores);
        if (phase == 0) {
            std::unordered_map<int, memory> qk{
                {DNNL_ARG_SRC, mem(run.q, q)}, {DNNL_ARG_WEIGHTS, mem(run.kT, k)}, {DNNL_ARG_DST, sc}};
            if (a.maskBatch > 0)
                qk.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mem(run.mask, mask));
            run.qk.execute(stream, qk);
        } else {
            run.pv.execute(stream,
                           {{DNNL_ARG_SRC, sc}, {DNNL_ARG_WEIGHTS, mem(run.v, v)}, {DNNL_ARG_DST, mem(run.out, out)}});
        }
        stream.wait();
        return true;
#endif
    }

private:
#if DNNL_VERSION_MAJOR < 3
    using Key = std::vector<int64_t>;

    const AttentionPrimitives& primitivesFor(const AscvizDnnlAttention& a)
    {
        int32_t scaleBits = 0;
        static_assert(sizeof(scaleBits) == sizeof(a.scale));
        std::memcpy(&scaleBits, &a.scale, sizeof(scaleBits));
        Key key{a.B, a.H, a.T, a.S, a.D, a.maskBatch, scaleBits};
        for (const int64_t* st : {a.q, a.k, a.v})
            key.insert(key.end(), st, st + 4);
        if (auto it = m_cache.find(key); it != m_cache.end())
            return it->second;
        if (m_cache.size() >= 1024)
            m_cache.clear();
        AttentionPrimitives p;
        using dims = memory::dims;
        p.q = memory::desc(dims{a.B, a.H, a.T, a.D}, DT::f32, dims{a.q[0], a.q[1], a.q[2], a.q[3]});
        p.kT = memory::desc(dims{a.B, a.H, a.D, a.S}, DT::f32, dims{a.k[0], a.k[1], a.k[3], a.k[2]});
        p.v = memory::desc(dims{a.B, a.H, a.S, a.D}, DT::f32, dims{a.v[0], a.v[1], a.v[2], a.v[3]});
        p.scores = memory::desc(dims{a.B, a.H, a.T, a.S}, DT::f32, Tag::abcd);
        p.out = memory::desc(dims{a.B, a.H, a.T, a.D}, DT::f32, dims{a.T * a.H * a.D, a.D, a.H * a.D, 1});
        dnnl::primitive_attr attr;
        if (a.scale != 1.0f)
            attr.set_output_scales(0, {a.scale});
        if (a.maskBatch > 0) {
            p.mask = memory::desc(dims{a.maskBatch, 1, a.T, a.S}, DT::f32, Tag::abcd);
            dnnl::post_ops ops;
            ops.append_binary(dnnl::algorithm::binary_add, p.mask);
            attr.set_post_ops(ops);
        }
        p.qk = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(p.q, p.kT, p.scores), attr, m_engine));
        p.pv = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(p.scores, p.v, p.out), m_engine));
        return m_cache.emplace(std::move(key), std::move(p)).first->second;
    }

    std::map<Key, AttentionPrimitives> m_cache;
#endif
    dnnl::engine m_engine{dnnl::engine::kind::cpu, 0};
    std::mutex m_mutex;
};

AttentionCache& attentionCache()
{
    static AttentionCache c;
    return c;
}

Engine& engine()
{
    static Engine e;
    return e;
}

const char* cpuIsaName()
{
    switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx:
        return "avx512_core_amx";
    case dnnl::cpu_isa::avx512_core_bf16:
        return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_vnni:
        return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core:
        return "avx512_core";
    case dnnl::cpu_isa::avx2_vnni:
        return "avx2_vnni";
    case dnnl::cpu_isa::avx2:
        return "avx2";
    case dnnl::cpu_isa::avx:
        return "avx";
    case dnnl::cpu_isa::sse41:
        return "sse41";
    default:
        return "older than sse41";
    }
}

// Runs f and turns any exception into the table's error convention.
template <typename F> int guarded(char* err, std::size_t errLen, F&& f)
{
    try {
        return f();
    } catch (const dnnl::error& e) {
        std::snprintf(err, errLen, "oneDNN: %s (status %d)", e.what(), static_cast<int>(e.status));
    } catch (const std::exception& e) {
        std::snprintf(err, errLen, "%s", e.what());
    }
    return -1;
}

const char* versionString()
{
    static const std::string s = [] {
        const dnnl::version_t* v = dnnl::version();
        return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    }();
    return s.c_str();
}

const AscvizDnnlApi kApi = {
    ASCVIZ_DNNL_ABI_VERSION,
    versionString,
    cpuIsaName,
    [] {
        const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
        return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx ? 1 : 0;
    },
    []() -> void* { return new (std::nothrow) Packed(); },
    [](void* p) { delete static_cast<Packed*>(p); },
    [](const void* p) { return p ? static_cast<const Packed*>(p)->bytes : int64_t{0}; },
    [](const float* x, int64_t rows, int64_t in, const float* w, int64_t out, const float* b, int act, float* y,
       void* packed, int bf16, char* err, std::size_t errLen) {
        return guarded(err, errLen, [&] {
            engine().run(x, rows, in, w, out, b, static_cast<DnnlAct>(act), y, static_cast<Packed*>(packed),
                         bf16 != 0 && packed != nullptr);
            return 0;
        });
    },
    [](const AscvizDnnlAttention* shape, int phase, const float* q, const float* k, const float* v, const float* mask,
       float* scores, float* out, char* err, std::size_t errLen) {
        return guarded(err, errLen,
                       [&] { return attentionCache().run(*shape, phase, q, k, v, mask, scores, out) ? 0 : 1; });
    },
};

} // namespace

} // namespace ascviz::model

extern "C" __attribute__((visibility("default"))) const AscvizDnnlApi* ascviz_dnnl_api()
{
    return &ascviz::model::kApi;
}
