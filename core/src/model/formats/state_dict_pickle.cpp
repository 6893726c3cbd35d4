#include "formats/state_dict_pickle.h"

#include "ascviz/base/error.h"

#include <cstring>
#include <memory>

namespace ascviz::model {
namespace {

struct Obj {
    enum Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor, Mark } kind = None;
    int64_t i = 0;
    double f = 0;
    std::string s;                              // Str, Global ("module.name"), Storage key
    std::string storageType;                    // Storage
    std::vector<Obj*> items;                    // Tuple, List
    std::vector<std::pair<Obj*, Obj*>> entries; // Dict
    PickledTensor tensor;                       // Tensor
};

struct StorageType {
    const char* name;
    std::size_t elementSize;
};
constexpr StorageType kStorageTypes[] = {
    {"torch.FloatStorage", 4}, {"torch.HalfStorage", 2}, {"torch.BFloat16Storage", 2}, {"torch.DoubleStorage", 8},
    {"torch.LongStorage", 8},  {"torch.IntStorage", 4},  {"torch.ShortStorage", 2},    {"torch.CharStorage", 1},
    {"torch.ByteStorage", 1},  {"torch.BoolStorage", 1},
};

// Objects live in an arena owned by the unpickler and refer to each other by plain pointers: a pickle may
// build cycles (a list appended to itself through the memo) or nest containers arbitrarily deep, and
// neither may leak or recurse on destruction.
class Unpickler {
public:
    Unpickler(const std::string& file, std::string_view data)
        : m_file(file), m_p(data.data()), m_end(data.data() + data.size())
    {
    }

    Obj* run()
    {
        for (;;) {
            const auto op = static_cast<unsigned char>(byte());
            switch (op) {
            case 0x80:
                byte();
                break; // PROTO
            case '}':
                push(make(Obj::Dict));
                break;
            case ']':
                push(make(Obj::List));
                break;
            case ')':
                push(make(Obj::Tuple));
                break;
            case '(':
                push(make(Obj::Mark));
                break;
            case 'N':
                push(make(Obj::None));
                break;
            case 0x88:
            case 0x89: {
                auto* b = make(Obj::Bool);
                b->i = op == 0x88;
                push(b);
                break;
            }
            case 'K':
                pushInt(static_cast<unsigned char>(byte()));
                break;
            case 'M':
                pushInt(static_cast<int64_t>(le(2)));
                break;
            case 'J':
                pushInt(static_cast<int32_t>(le(4)));
                break;
            case 0x8a: { // LONG1: n little-endian two's-complement bytes
                const auto n = static_cast<unsigned char>(byte());
                if (n > 8)
                    fail("an integer of " + std::to_string(n) + " bytes");
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
                auto* f = make(Obj::Float);
                std::memcpy(&f->f, &v, 8);
                push(f);
                break;
            }
            case 'X':
                pushStr(le(4));
                break; // BINUNICODE
            case 0x8c:
                pushStr(static_cast<unsigned char>(byte()));
                break; // SHORT_BINUNICODE
            case 'T':
                pushStr(le(4));
                break; // BINSTRING
            case 'U':
                pushStr(static_cast<unsigned char>(byte()));
                break; // SHORT_BINSTRING
            case 'q':
                memo(static_cast<unsigned char>(byte()));
                break;
            case 'r':
                memo(le(4));
                break;
            case 0x94:
                memo(m_memo.size());
                break; // MEMOIZE
            case 'h':
                push(recall(static_cast<unsigned char>(byte())));
                break;
            case 'j':
                push(recall(le(4)));
                break;
            case 't': {
                auto* t = make(Obj::Tuple);
                t->items = popMark();
                push(t);
                break;
            }
            case 0x85:
            case 0x86:
            case 0x87: {
                auto* t = make(Obj::Tuple);
                t->items.resize(op - 0x84u);
                for (auto it = t->items.rbegin(); it != t->items.rend(); ++it)
                    *it = pop();
                push(t);
                break;
            }
            case 'c': { // GLOBAL module\nname\n
                auto* g = make(Obj::Global);
                const std::string mod = line();
                g->s = mod + "." + line();
                push(g);
                break;
            }
            case 'Q':
                push(persistent(pop()));
                break; // BINPERSID
            case 'R': {
                auto* args = pop();
                auto* fn = pop();
                push(reduce(fn, args));
                break;
            }
            case 'b':
                pop();
                break; // BUILD: state of an OrderedDict (_metadata) or hooks: not needed
            case 's': {
                auto* v = pop();
                auto* k = pop();
                top(Obj::Dict)->entries.emplace_back(k, v);
                break;
            }
            case 'u': {
                auto kv = popMark();
                auto* d = top(Obj::Dict);
                for (std::size_t k = 0; k + 1 < kv.size(); k += 2)
                    d->entries.emplace_back(kv[k], kv[k + 1]);
                break;
            }
            case 'a': {
                auto* v = pop();
                top(Obj::List)->items.push_back(v);
                break;
            }
            case 'e': {
                auto vs = popMark();
                auto* l = top(Obj::List);
                l->items.insert(l->items.end(), vs.begin(), vs.end());
                break;
            }
            case '.':
                return pop();
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
    Obj* make(Obj::Kind k)
    {
        m_arena.push_back(std::make_unique<Obj>());
        m_arena.back()->kind = k;
        return m_arena.back().get();
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
    void push(Obj* p) { m_stack.push_back(p); }
    void pushInt(int64_t v)
    {
        auto* p = make(Obj::Int);
        p->i = v;
        push(p);
    }
    void pushStr(uint64_t n)
    {
        if (n > static_cast<uint64_t>(m_end - m_p))
            fail("truncated string");
        auto* p = make(Obj::Str);
        p->s.assign(m_p, static_cast<std::size_t>(n));
        m_p += n;
        push(p);
    }
    Obj* pop()
    {
        if (m_stack.empty())
            fail("stack underflow");
        Obj* p = m_stack.back();
        m_stack.pop_back();
        return p;
    }
    Obj* top(Obj::Kind k)
    {
        if (m_stack.empty() || m_stack.back()->kind != k)
            fail("unexpected object on the stack");
        return m_stack.back();
    }
    std::vector<Obj*> popMark()
    {
        std::vector<Obj*> out;
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
    Obj* recall(uint64_t idx)
    {
        auto it = m_memo.find(idx);
        if (it == m_memo.end())
            fail("unknown memo " + std::to_string(idx));
        return it->second;
    }

    // ('storage', torch.XStorage, key, location, numel)
    Obj* persistent(const Obj* pid)
    {
        if (pid->kind != Obj::Tuple || pid->items.size() < 5 || pid->items[0]->s != "storage" ||
            pid->items[1]->kind != Obj::Global || pid->items[2]->kind != Obj::Str)
            fail("unsupported persistent id");
        const std::string& key = pid->items[2]->s;
        if (auto it = m_storages.find(key); it != m_storages.end())
            return it->second;
        if (storageElementSize(pid->items[1]->s) == 0)
            throw ModelError(m_file + ": unsupported storage type " + pid->items[1]->s);
        auto* st = make(Obj::Storage);
        st->storageType = pid->items[1]->s;
        st->s = key;
        m_storages[key] = st;
        return st;
    }

    std::vector<int64_t> ints(const Obj* tuple, const char* what) const
    {
        if (tuple->kind != Obj::Tuple)
            fail(std::string("malformed tensor ") + what);
        std::vector<int64_t> v;
        for (const auto* x : tuple->items) {
            if (x->kind != Obj::Int || x->i < 0)
                fail(std::string("malformed tensor ") + what);
            v.push_back(x->i);
        }
        return v;
    }

    Obj* reduce(const Obj* fn, const Obj* args)
    {
        if (fn->kind != Obj::Global)
            fail("REDUCE of a non-global");
        if (fn->s == "collections.OrderedDict" || fn->s == "builtins.dict")
            return make(Obj::Dict);
        if (fn->s == "torch._utils._rebuild_tensor_v2" || fn->s == "torch._utils._rebuild_tensor") {
            const auto& a = args->items;
            if (args->kind != Obj::Tuple || a.size() < 4 || a[0]->kind != Obj::Storage || a[1]->kind != Obj::Int ||
                a[1]->i < 0)
                fail("malformed _rebuild_tensor_v2 arguments");
            auto* t = make(Obj::Tensor);
            t->tensor.storageKey = a[0]->s;
            t->tensor.storageType = a[0]->storageType;
            t->tensor.storageOffset = a[1]->i;
            t->tensor.sizes = ints(a[2], "sizes");
            t->tensor.strides = ints(a[3], "strides");
            if (t->tensor.sizes.size() != t->tensor.strides.size())
                fail("a tensor with " + std::to_string(t->tensor.sizes.size()) + " sizes but " +
                     std::to_string(t->tensor.strides.size()) + " strides");
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
    const char* m_p;
    const char* m_end;
    std::vector<std::unique_ptr<Obj>> m_arena;
    std::vector<Obj*> m_stack;
    std::map<uint64_t, Obj*> m_memo;
    std::map<std::string, Obj*> m_storages;
};

} // namespace

std::map<std::string, PickledTensor> parseStateDictPickle(std::string_view pickle, const std::string& file)
{
    Unpickler u(file, pickle);
    const Obj* root = u.run();
    if (root->kind == Obj::Dict && root->entries.size() == 1 && root->entries[0].first->kind == Obj::Str &&
        root->entries[0].first->s == "state_dict" && root->entries[0].second->kind == Obj::Dict)
        root = root->entries[0].second;
    if (root->kind != Obj::Dict)
        throw ModelError(file + " does not hold a state dict (a mapping of names to tensors)");
    std::map<std::string, PickledTensor> out;
    for (const auto& [k, v] : root->entries)
        if (k->kind == Obj::Str && v->kind == Obj::Tensor)
            out.emplace(k->s, v->tensor);
    return out;
}

std::size_t storageElementSize(const std::string& storageType)
{
    for (const auto& t : kStorageTypes)
        if (storageType == t.name)
            return t.elementSize;
    return 0;
}

void checkTensorInStorage(const PickledTensor& t, uint64_t storageElements, const std::string& name,
                          const std::string& file)
{
    // The last element's index, offset + Σ (size - 1) · stride, in unsigned arithmetic that cannot overflow
    // unnoticed (sizes, strides and the offset are non-negative: parseStateDictPickle checked).
    uint64_t last = static_cast<uint64_t>(t.storageOffset);
    bool overflow = false;
    for (std::size_t d = 0; d < t.sizes.size() && d < t.strides.size(); ++d) {
        if (t.sizes[d] == 0)
            return; // no elements
        uint64_t step = 0;
        overflow |=
            __builtin_mul_overflow(static_cast<uint64_t>(t.sizes[d] - 1), static_cast<uint64_t>(t.strides[d]), &step);
        overflow |= __builtin_add_overflow(last, step, &last);
    }
    if (overflow || last >= storageElements)
        throw ModelError(file + " is not a state dict this reader understands: tensor " + name +
                         " reaches beyond its storage");
}

} // namespace ascviz::model
