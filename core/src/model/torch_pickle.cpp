#include "torch_pickle.h"

#include "ascviz/base/error.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <memory>
#include <variant>
#include <vector>

namespace ascviz::model {
namespace {

struct Obj;
using P = std::shared_ptr<Obj>;

struct Obj {
    enum Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor, Mark } kind = None;
    int64_t i = 0;
    double f = 0;
    std::string s;                        // Str, Global ("module.name"), Storage key
    std::vector<P> items;                 // Tuple, List
    std::vector<std::pair<P, P>> entries; // Dict
    at::ScalarType dtype = at::kFloat;    // Storage
    at::Tensor t;                         // Storage (1-D), Tensor
};

P make(Obj::Kind k)
{
    auto p = std::make_shared<Obj>();
    p->kind = k;
    return p;
}

at::ScalarType storageType(const std::string& global, const std::string& file)
{
    static const std::pair<const char*, at::ScalarType> table[] = {
        {"torch.FloatStorage", at::kFloat},   {"torch.HalfStorage", at::kHalf},   {"torch.BFloat16Storage", at::kBFloat16},
        {"torch.DoubleStorage", at::kDouble}, {"torch.LongStorage", at::kLong},   {"torch.IntStorage", at::kInt},
        {"torch.ShortStorage", at::kShort},   {"torch.CharStorage", at::kChar},   {"torch.ByteStorage", at::kByte},
        {"torch.BoolStorage", at::kBool},
    };
    for (const auto& [n, t] : table)
        if (global == n)
            return t;
    throw ModelError(file + ": unsupported storage type " + global);
}

class Unpickler {
public:
    Unpickler(const std::string& file, caffe2::serialize::PyTorchStreamReader& zip, const char* data, std::size_t size)
        : m_file(file), m_zip(zip), m_p(data), m_end(data + size)
    {
    }

    P run()
    {
        for (;;) {
            const auto op = static_cast<unsigned char>(byte());
            switch (op) {
            case 0x80: byte(); break; // PROTO
            case '}': push(make(Obj::Dict)); break;
            case ']': push(make(Obj::List)); break;
            case ')': push(make(Obj::Tuple)); break;
            case '(': push(make(Obj::Mark)); break;
            case 'N': push(make(Obj::None)); break;
            case 0x88: case 0x89: { auto b = make(Obj::Bool); b->i = op == 0x88; push(b); break; }
            case 'K': pushInt(static_cast<unsigned char>(byte())); break;
            case 'M': pushInt(static_cast<int64_t>(le(2))); break;
            case 'J': pushInt(static_cast<int32_t>(le(4))); break;
            case 0x8a: { // LONG1
                const auto n = static_cast<unsigned char>(byte());
                uint64_t v = le(n);
                if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
                    v |= ~uint64_t(0) << (8 * n);
                pushInt(static_cast<int64_t>(v));
                break;
            }
            case 'G': { // BINFLOAT, big-endian
                uint64_t v = 0;
                for (int k = 0; k < 8; ++k)
                    v = (v << 8) | static_cast<unsigned char>(byte());
                auto f = make(Obj::Float);
                std::memcpy(&f->f, &v, 8);
                push(f);
                break;
            }
            case 'X': pushStr(le(4)); break;           // BINUNICODE
            case 0x8c: pushStr(static_cast<unsigned char>(byte())); break; // SHORT_BINUNICODE
            case 'T': pushStr(le(4)); break;           // BINSTRING
            case 'U': pushStr(static_cast<unsigned char>(byte())); break; // SHORT_BINSTRING
            case 'q': memo(static_cast<unsigned char>(byte())); break;
            case 'r': memo(le(4)); break;
            case 0x94: memo(m_memo.size()); break;     // MEMOIZE
            case 'h': push(recall(static_cast<unsigned char>(byte()))); break;
            case 'j': push(recall(le(4))); break;
            case 't': { auto t = make(Obj::Tuple); t->items = popMark(); push(t); break; }
            case 0x85: case 0x86: case 0x87: {
                auto t = make(Obj::Tuple);
                t->items.resize(op - 0x84u);
                for (auto it = t->items.rbegin(); it != t->items.rend(); ++it)
                    *it = pop();
                push(t);
                break;
            }
            case 'c': { // GLOBAL module\nname\n
                auto g = make(Obj::Global);
                const std::string mod = line();
                g->s = mod + "." + line();
                push(g);
                break;
            }
            case 'Q': push(persistent(pop())); break; // BINPERSID
            case 'R': { auto args = pop(); auto fn = pop(); push(reduce(fn, args)); break; }
            case 'b': pop(); break; // BUILD: state of an OrderedDict (_metadata) or hooks: not needed
            case 's': { auto v = pop(); auto k = pop(); top(Obj::Dict)->entries.emplace_back(k, v); break; }
            case 'u': {
                auto kv = popMark();
                auto d = top(Obj::Dict);
                for (std::size_t k = 0; k + 1 < kv.size(); k += 2)
                    d->entries.emplace_back(kv[k], kv[k + 1]);
                break;
            }
            case 'a': { auto v = pop(); top(Obj::List)->items.push_back(v); break; }
            case 'e': { auto vs = popMark(); auto l = top(Obj::List); l->items.insert(l->items.end(), vs.begin(), vs.end()); break; }
            case '.': return pop();
            default:
                fail("unsupported pickle opcode 0x" + hex(op));
            }
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw ModelError(m_file + " is not a state dict this reader understands: " + what);
    }
    static std::string hex(unsigned v)
    {
        const char* d = "0123456789abcdef";
        return std::string{d[(v >> 4) & 15], d[v & 15]};
    }
    char byte()
    {
        if (m_p >= m_end)
            fail("truncated pickle");
        return *m_p++;
    }
    uint64_t le(std::size_t n)
    {
        uint64_t v = 0;
        for (std::size_t k = 0; k < n; ++k)
            v |= static_cast<uint64_t>(static_cast<unsigned char>(byte())) << (8 * k);
        return v;
    }
    std::string line()
    {
        std::string s;
        for (char c = byte(); c != '\n'; c = byte())
            s += c;
        return s;
    }
    void push(P p) { m_stack.push_back(std::move(p)); }
    void pushInt(int64_t v) { auto p = make(Obj::Int); p->i = v; push(p); }
    void pushStr(uint64_t n)
    {
        if (n > static_cast<uint64_t>(m_end - m_p))
            fail("truncated string");
        auto p = make(Obj::Str);
        p->s.assign(m_p, static_cast<std::size_t>(n));
        m_p += n;
        push(p);
    }
    P pop()
    {
        if (m_stack.empty())
            fail("stack underflow");
        P p = m_stack.back();
        m_stack.pop_back();
        return p;
    }
    P top(Obj::Kind k)
    {
        if (m_stack.empty() || m_stack.back()->kind != k)
            fail("unexpected object on the stack");
        return m_stack.back();
    }
    std::vector<P> popMark()
    {
        std::vector<P> out;
        while (!m_stack.empty() && m_stack.back()->kind != Obj::Mark) {
            out.push_back(m_stack.back());
            m_stack.pop_back();
        }
        if (m_stack.empty())
            fail("missing MARK");
        m_stack.pop_back();
        return {out.rbegin(), out.rend()};
    }
    void memo(uint64_t idx)
    {
        if (m_stack.empty())
            fail("memo of an empty stack");
        m_memo[idx] = m_stack.back();
    }
    P recall(uint64_t idx)
    {
        auto it = m_memo.find(idx);
        if (it == m_memo.end())
            fail("unknown memo " + std::to_string(idx));
        return it->second;
    }

    // ('storage', torch.XStorage, key, location, numel)
    P persistent(const P& pid)
    {
        if (pid->kind != Obj::Tuple || pid->items.size() < 5 || pid->items[0]->s != "storage" ||
            pid->items[1]->kind != Obj::Global)
            fail("unsupported persistent id");
        const std::string key = pid->items[2]->s;
        if (auto it = m_storages.find(key); it != m_storages.end())
            return it->second;
        auto st = make(Obj::Storage);
        st->dtype = storageType(pid->items[1]->s, m_file);
        st->s = key;
        const std::string record = "data/" + key;
        if (!m_zip.hasRecord(record))
            fail("missing record " + record);
        auto [ptr, size] = m_zip.getRecord(record);
        const auto elem = static_cast<std::size_t>(at::elementSize(st->dtype));
        st->t = at::empty({static_cast<int64_t>(size / elem)}, at::TensorOptions().dtype(st->dtype));
        std::memcpy(st->t.data_ptr(), ptr.get(), size / elem * elem);
        m_storages[key] = st;
        return st;
    }

    static std::vector<int64_t> ints(const P& tuple)
    {
        std::vector<int64_t> v;
        for (const auto& x : tuple->items)
            v.push_back(x->i);
        return v;
    }

    P reduce(const P& fn, const P& args)
    {
        if (fn->kind != Obj::Global)
            fail("REDUCE of a non-global");
        if (fn->s == "collections.OrderedDict" || fn->s == "builtins.dict")
            return make(Obj::Dict);
        if (fn->s == "torch._utils._rebuild_tensor_v2" || fn->s == "torch._utils._rebuild_tensor") {
            const auto& a = args->items;
            if (a.size() < 4 || a[0]->kind != Obj::Storage)
                fail("malformed _rebuild_tensor_v2 arguments");
            auto t = make(Obj::Tensor);
            const auto sizes = ints(a[2]), strides = ints(a[3]);
            int64_t last = a[1]->i;
            for (std::size_t d = 0; d < sizes.size(); ++d)
                if (sizes[d] > 0)
                    last += (sizes[d] - 1) * strides[d];
            if (last >= a[0]->t.numel() && !sizes.empty())
                fail("a tensor reaches beyond its storage");
            t->t = a[0]->t.as_strided(sizes, strides, a[1]->i);
            return t;
        }
        if (fn->s == "torch._utils._rebuild_parameter") {
            if (args->items.empty() || args->items[0]->kind != Obj::Tensor)
                fail("malformed _rebuild_parameter arguments");
            return args->items[0];
        }
        fail("unsupported global " + fn->s);
    }

    std::string m_file;
    caffe2::serialize::PyTorchStreamReader& m_zip;
    const char* m_p;
    const char* m_end;
    std::vector<P> m_stack;
    std::map<uint64_t, P> m_memo;
    std::map<std::string, P> m_storages;
};

} // namespace

std::map<std::string, at::Tensor> loadTorchStateDict(const std::filesystem::path& file)
{
    const std::string name = file.string();
    std::map<std::string, at::Tensor> out;
    try {
        caffe2::serialize::PyTorchStreamReader zip(name);
        if (!zip.hasRecord("data.pkl"))
            throw ModelError(name + " has no data.pkl (not written by torch.save)");
        auto [ptr, size] = zip.getRecord("data.pkl");
        Unpickler u(name, zip, static_cast<const char*>(ptr.get()), size);
        P root = u.run();
        if (root->kind == Obj::Dict && root->entries.size() == 1 && root->entries[0].first->s == "state_dict" &&
            root->entries[0].second->kind == Obj::Dict)
            root = root->entries[0].second;
        if (root->kind != Obj::Dict)
            throw ModelError(name + " does not hold a state dict (a mapping of names to tensors)");
        for (const auto& [k, v] : root->entries)
            if (k->kind == Obj::Str && v->kind == Obj::Tensor)
                out.emplace(k->s, v->t);
    } catch (const c10::Error& e) {
        throw ModelError("cannot read " + name + " (a zip archive written by torch.save is expected; legacy "
                         "pre-1.6 files are not supported, convert them to safetensors): " + e.what_without_backtrace());
    }
    return out;
}

} // namespace ascviz::model
