#!/usr/bin/env python3
"""The architecture rules of docs/architecture.md, checked on the source tree (ctest: architecture_rules).

1. Each core room links only the rooms the documented graph allows (ALLOWED below is that graph; a new room
   or a new edge is added here and in docs/architecture.md together).
2. Each room's sources include only headers of rooms in its link closure (the build enforces the same with
   per-room include folders; this check names the file and line).
3. core has no Qt; only the model room's sources see torch and oneDNN; ui and app never include torch headers.
4. ui is compiled with QT_NO_KEYWORDS.
5. No C++ source file over MAX_LINES lines (new work goes in a new file or room, not a bigger file).
6. SQL (statements in string literals, sqlite3 calls) only in the results room (results/sqlite.h, the one SQLite
   layer of core) and the study room (SQL_KNOWN: today's exceptions, each with its TODO).
7. SVG markup is written only by the figure room (SVG_KNOWN: today's writers outside it, so that no new one comes).
8. python/ (the extension over core), core/ and ui/ include no app/ header (APP_INCLUDES_KNOWN: today's, python's).
9. core's string literals name no command-line `--flag`: a message says what to change through the Remedy pattern
   (base/error.h), each facade in its own words (FLAGS_KNOWN: today's, at most as many times as today).
Rules 6 to 9 read C++ string literals outside comments. The KNOWN tables only shrink (issue 40): an entry no
longer needed is reported as a note, not a finding.

Usage: check_rooms.py SOURCE_ROOT. Exit 0 when every rule holds; else one line per finding and exit 1.
"""
import pathlib
import re
import sys

# room -> the rooms it may link directly (PUBLIC or PRIVATE); the dependency rules of docs/architecture.md.
ALLOWED = {
    "base": set(),
    "tokenizer": {"base"},
    "model_formats": {"base"},
    "model_dnnl": {"base"},
    "model": {"base", "tokenizer", "model_formats", "model_dnnl"},
    "syntax": {"base"},
    "eval": {"base", "syntax"},
    "render": {"base", "eval"},
    "results": {"base", "eval"},
    "corpusrun": {"base", "results"},
    "batch": {"base", "corpusrun", "results", "eval", "model"},
    "analysis": {"base", "results", "render"},
    "cluster": {"base", "results"},
    "study": {"base", "eval", "results"},
    "attention": {"base", "syntax", "results"},
    "figure": {"base", "eval", "render", "results", "study"},
    "galeras": {"base", "syntax", "results", "analysis"},
    "galerasrun": {"base", "syntax", "eval", "model", "galeras", "corpusrun"},
    "lens": {"base", "eval", "model", "results", "render"},
    "attribution": {"base", "eval", "model"},
    "experts": {"base", "corpusrun", "eval", "model"},
    "share": {"base"},
    "calibration": {"base", "results"},
}
MAX_LINES = 700
CPP = {".cpp", ".h", ".hpp", ".cc"}

findings = []


def rel(p: pathlib.Path) -> str:
    return str(p.relative_to(root))


def room_links(cmake_text: str):
    """target -> the ascviz_* libraries named in its target_link_libraries calls."""
    links = {}
    for m in re.finditer(r"target_link_libraries\(\s*ascviz_(\w+)([^)]*)\)", cmake_text, re.S):
        names = set(re.findall(r"\bascviz_(\w+)", m.group(2))) - {"warnings", "torch", "dnnl", "grammars"}
        links.setdefault(m.group(1), set()).update(names)
    return links


def closure(room: str, graph) -> set:
    seen, todo = {room}, [room]
    while todo:
        for d in graph.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


root = pathlib.Path(sys.argv[1]).resolve()
core_src = root / "core" / "src"

graph = {}
for cm in sorted(core_src.glob("*/CMakeLists.txt")):
    text = cm.read_text()
    for lib in re.findall(r"ascviz_core_library\(\s*ascviz_(\w+)", text):
        graph.setdefault(lib, set())
    for lib, deps in room_links(text).items():
        graph.setdefault(lib, set()).update(deps)

for lib, deps in sorted(graph.items()):
    if lib not in ALLOWED:
        findings.append(f"core room library ascviz_{lib} is not in the documented graph (tests/architecture/check_rooms.py ALLOWED, docs/architecture.md)")
        continue
    for d in sorted(deps - ALLOWED[lib]):
        findings.append(f"ascviz_{lib} links ascviz_{d}, which the dependency rules do not allow")

include_re = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')

# The model room's sub-rooms (core/src/model/<sub-room>/, one reason to change each) -> the sub-rooms whose
# headers it may include ("<sub-room>/<file>.h"); "" is the room's top (load, scoring, generation, sampling,
# language_model_impl.h), which may include every sub-room. A new sub-room or edge is added here and in
# docs/architecture.md together.
MODEL_SUBROOMS = {
    "settings": {"settings"},                                             # the ASCVIZ_* environment settings
    "formats": {"formats", "settings"},                                   # checkpoint formats: safetensors, pickles, MXFP4
    "kernels": {"kernels", "formats", "settings"},                        # products, oneDNN, 16-bit weights, the head
    "decoder": {"decoder", "kernels", "formats", "settings"},             # the one generic decoder and its layer kinds
    "families": {"families", "decoder", "formats", "settings"},           # config readers and weight maps per model_type
    "hooks": {"hooks", "", "decoder", "kernels", "formats", "settings"},  # lens, masking/gradients, ablation
    "": {"", "families", "decoder", "kernels", "formats", "settings"},    # load, score, generate, sample
}


def check_model_subroom(path, parts):
    sub = parts[2] if len(parts) > 3 else ""
    if sub not in MODEL_SUBROOMS:
        findings.append(f"{rel(path)}: core/src/model/{sub}/ is not a sub-room of the model room "
                        "(tests/architecture/check_rooms.py MODEL_SUBROOMS, docs/architecture.md)")
        return
    for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = re.match(r'^\s*#\s*include\s*"([^"]+)"', line)
        if not m or m.group(1).startswith("ascviz/"):
            continue
        inc = m.group(1)
        target = inc.split("/")[0] if "/" in inc else ""
        if target not in MODEL_SUBROOMS:
            findings.append(f"{rel(path)}:{no}: include \"{inc}\" names no sub-room of core/src/model "
                            "(write \"<sub-room>/<file>.h\")")
        elif target not in MODEL_SUBROOMS[sub]:
            findings.append(f"{rel(path)}:{no}: model sub-room {sub or '(top)'} includes {inc} "
                            f"(it may include {', '.join(sorted(t or '(top)' for t in MODEL_SUBROOMS[sub]))})")

for path in sorted(p for p in (root / "core").rglob("*") if p.suffix in CPP):
    parts = path.relative_to(root / "core").parts
    room = parts[1] if parts[0] in ("src",) else (parts[2] if len(parts) > 2 and parts[0] == "include" else None)
    if room == "model" and parts[0] == "src" and path.name.startswith(("safetensors", "state_dict_pickle")):
        room = "model_formats"
    if room == "model" and parts[0] == "src" and path.name.startswith("dnnl_gemm"):
        room = "model_dnnl"
    if parts[:2] == ("src", "model"):
        check_model_subroom(path, parts)
    allowed_rooms = closure(room, ALLOWED) if room in ALLOWED else None
    for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = include_re.match(line)
        if not m:
            continue
        inc = m.group(1)
        if re.match(r"Q[A-Z]|Qt", inc):
            findings.append(f"{rel(path)}:{no}: core includes Qt ({inc})")
        if inc.startswith("oneapi/") and not (parts[0] == "src" and room in ("model", "model_dnnl")):
            findings.append(f"{rel(path)}:{no}: oneDNN header {inc} outside the model room's sources")
        if inc.startswith(("torch/", "ATen/", "c10/")) and not (parts[0] == "src" and room == "model"):
            findings.append(f"{rel(path)}:{no}: torch header {inc} outside the model room's sources")
        r = re.match(r"ascviz/(\w+)/", inc)
        if r and allowed_rooms is not None and r.group(1) not in allowed_rooms and r.group(1) != room:
            findings.append(f"{rel(path)}:{no}: room {room} includes {inc} but does not link room {r.group(1)}")

for top in ("ui", "app"):
    for path in sorted(p for p in (root / top).rglob("*") if p.suffix in CPP):
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = include_re.match(line)
            if m and m.group(1).startswith(("torch/", "ATen/", "c10/", "oneapi/")):
                findings.append(f"{rel(path)}:{no}: {top} includes a torch header ({m.group(1)})")

ui_cmake = (root / "ui" / "CMakeLists.txt").read_text() if (root / "ui" / "CMakeLists.txt").exists() else ""
if "QT_NO_KEYWORDS" not in ui_cmake:
    findings.append("ui/CMakeLists.txt: ui is not compiled with QT_NO_KEYWORDS")

for top in ("core", "ui", "app", "tests", "python"):
    base = root / top
    if not base.exists():
        continue
    for path in sorted(p for p in base.rglob("*") if p.suffix in CPP and "data" not in p.relative_to(root).parts):
        n = sum(1 for _ in path.open(errors="replace"))
        if n > MAX_LINES:
            findings.append(f"{rel(path)}: {n} lines, over the {MAX_LINES}-line limit")


def literals(text: str):
    """(line, text) of every C++ string literal (plain, prefixed, raw) outside comments and character literals."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c in "uULR" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and (
                m := re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 24])):
            end = ")" + m.group(1) + '"'
            s = i + m.end()
            j = text.find(end, s)
            j = n if j < 0 else j
            out.append((line, text[s:j]))
            line += text.count("\n", i, j)
            i = j + len(end)
        elif c in "\"'":
            j, buf = i + 1, []
            while j < n and text[j] != c and text[j] != "\n":
                buf.append(text[j:j + 2] if text[j] == "\\" else text[j])
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append((line, "".join(buf)))
            i = j + 1
        elif c.isalnum() or c == "_":  # an identifier or number (a ' digit separator is not a literal)
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_'"):
                j += 1
            i = j
        else:
            i += 1
    return out


SOURCES = [p for top in ("core", "ui", "app", "python") if (root / top).exists()
           for p in sorted((root / top).rglob("*")) if p.suffix in CPP]
LITERALS = {rel(p): literals(p.read_text(errors="replace")) for p in SOURCES}
notes = []

# 6. SQL
SQL_HOMES = ("core/src/results/", "core/include/ascviz/results/", "core/src/study/")
SQL_KNOWN = {}
sql_re = re.compile(r"\b(SELECT|INSERT\s+(OR\s+\w+\s+)?INTO|CREATE\s+(TEMP\s+)?(TABLE|(UNIQUE\s+)?INDEX|VIEW|TRIGGER)|"
                    r"DELETE\s+FROM|UPDATE\s+\w+\s+SET|DROP\s+(TABLE|INDEX)|ALTER\s+TABLE|PRAGMA|"
                    r"BEGIN\s+(IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION)|ATTACH\s+DATABASE|COMMIT|ROLLBACK)\b")
sqlite_re = re.compile(r"\bsqlite3_\w+\s*\(|#\s*include\s*[<\"]sqlite3\.h[>\"]")


def confine(homes, known, table, hits_in, finding, gone):
    """Findings for the files outside `homes` where hits_in(path) finds lines, unless `known` lists them."""
    seen = set()
    for path in SOURCES:
        r = rel(path)
        if r.startswith(homes):
            continue
        hits = hits_in(path, r)
        if hits:
            seen.add(r)
            if r not in known:
                findings.append(f"{r}:{min(hits)}: {finding}")
    for r, why in known.items():
        if r not in seen:
            notes.append(f"note: {r} {gone}: remove it from {table} ({why})")


confine(SQL_HOMES, SQL_KNOWN, "SQL_KNOWN",
        lambda path, r: [no for no, s in LITERALS[r] if sql_re.search(s)] +
        [no for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
         if sqlite_re.search(line) and not line.lstrip().startswith("//")],
        "SQL outside the results and study rooms (use results/sqlite.h from the room that owns the data)",
        "has no SQL any more")

# 7. SVG markup
SVG_HOME = "core/src/figure/"
SVG_KNOWN = {
}
svg_re = re.compile(r"</?(svg|g|rect|text|tspan|path|line|polyline|polygon|circle|ellipse|title|desc|defs|"
                    r"linearGradient|radialGradient|stop|marker|use|clipPath|pattern)[\s>/]")
confine((SVG_HOME,), SVG_KNOWN, "SVG_KNOWN", lambda path, r: [no for no, s in LITERALS[r] if svg_re.search(s)],
        "SVG markup written outside the figure room (draw a Figure: figure/figure.h)", "writes no SVG any more")

# 8. app/ headers below app
APP_INCLUDES_KNOWN = set(
)  # empty: Python binds core's functions (issue 40); keep it so
app_header_dirs = [root / "app" / d for d in ("cli", "gui", "bench")]
seen_app_includes = set()
for path in SOURCES:
    r = rel(path)
    if r.startswith("app/"):
        continue
    for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = include_re.match(line)
        if not m or '"' not in line:
            continue
        inc = m.group(1)
        if (path.parent / inc).exists() or (root / "ui" / inc).exists() or inc.startswith("ascviz/"):
            continue
        if inc.startswith("app/") or any((d / inc).exists() for d in app_header_dirs):
            seen_app_includes.add((r, inc))
            if (r, inc) not in APP_INCLUDES_KNOWN:
                findings.append(f"{r}:{no}: includes the app/ header {inc} (app/ is the top layer: nothing "
                                "below it includes it)")
for r, inc in sorted(APP_INCLUDES_KNOWN - seen_app_includes):
    notes.append(f"note: {r} no longer includes {inc}: remove it from APP_INCLUDES_KNOWN")

# 9. --flags in core's strings: (file, flag) -> how many string literals name it today.
FLAGS_KNOWN = {
    # The option names the Remedy pattern maps (ascviz-cli's words for a limit); the facades read them here.
    ("core/include/ascviz/base/limits.h", "--max-ast-depth"): 1,
    ("core/include/ascviz/base/limits.h", "--max-ast-nodes"): 1,
    ("core/include/ascviz/base/limits.h", "--max-text-bytes"): 1,
    # The job scripts the cluster room writes: sbatch's options and ascviz-cli command lines, not messages.
    ("core/src/cluster/slurm.cpp", "--account"): 1,
    ("core/src/cluster/slurm.cpp", "--array"): 2,
    ("core/src/cluster/slurm.cpp", "--corpus"): 1,
    ("core/src/cluster/slurm.cpp", "--db"): 1,
    ("core/src/cluster/slurm.cpp", "--dependency"): 3,
    ("core/src/cluster/slurm.cpp", "--gres"): 1,
    ("core/src/cluster/slurm.cpp", "--job-name"): 2,
    ("core/src/cluster/slurm.cpp", "--model"): 1,
    ("core/src/cluster/slurm.cpp", "--open-mode"): 2,
    ("core/src/cluster/slurm.cpp", "--out"): 1,
    ("core/src/cluster/slurm.cpp", "--output"): 2,
    ("core/src/cluster/slurm.cpp", "--parsable"): 4,
    ("core/src/cluster/slurm.cpp", "--partition"): 1,
    ("core/src/cluster/slurm.cpp", "--requeue"): 1,
    ("core/src/cluster/slurm.cpp", "--resume"): 2,
    ("core/src/cluster/slurm.cpp", "--shard"): 1,
    ("core/src/cluster/slurm.cpp", "--time"): 1,
}
flag_re = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
flag_count, flag_line = {}, {}
for r, lits in LITERALS.items():
    if not r.startswith("core/"):
        continue
    for no, s in lits:
        for flag in set(flag_re.findall(s)):
            flag_count[(r, flag)] = flag_count.get((r, flag), 0) + 1
            flag_line.setdefault((r, flag), no)
for key, n in sorted(flag_count.items()):
    allowed = FLAGS_KNOWN.get(key, 0)
    if n > allowed:
        findings.append(f"{key[0]}:{flag_line[key]}: a core string names the command-line flag {key[1]} "
                        f"({n} strings, {allowed} allowed): give the error a Remedy (base/error.h) instead")
for key, allowed in sorted(FLAGS_KNOWN.items()):
    if flag_count.get(key, 0) < allowed:
        notes.append(f"note: {key[0]} names {key[1]} in {flag_count.get(key, 0)} strings now: lower FLAGS_KNOWN "
                     f"to that (was {allowed})")

for n in notes:
    print(n)
for f in findings:
    print(f)
print(f"architecture rules: {len(graph)} core libraries, {len(findings)} findings")
sys.exit(1 if findings else 0)
