#!/usr/bin/env python3
"""The architecture rules of docs/architecture.md, checked on the source tree (ctest: architecture_rules).

1. Each core room links only the rooms the documented graph allows (ALLOWED below is that graph; a new room
   or a new edge is added here and in docs/architecture.md together).
2. Each room's sources include only headers of rooms in its link closure (the build enforces the same with
   per-room include folders; this check names the file and line).
3. core has no Qt; only the model room's sources see torch and oneDNN; ui and app never include torch headers.
4. ui is compiled with QT_NO_KEYWORDS.
5. No C++ source file over MAX_LINES lines (new work goes in a new file or room, not a bigger file).

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
    "batch": {"base", "results", "eval", "model"},
    "analysis": {"base", "results", "render"},
    "cluster": {"base", "results"},
    "study": {"base", "eval", "results"},
    "attention": {"base", "syntax"},
    "figure": {"base", "eval", "render", "results", "study"},
    "galeras": {"base", "syntax", "results", "analysis"},
    "galerasrun": {"base", "syntax", "eval", "model", "galeras"},
    "lens": {"base", "eval", "model", "results", "render"},
    "attribution": {"base", "eval", "model"},
    "experts": {"base", "eval", "model"},
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
for path in sorted(p for p in (root / "core").rglob("*") if p.suffix in CPP):
    parts = path.relative_to(root / "core").parts
    room = parts[1] if parts[0] in ("src",) else (parts[2] if len(parts) > 2 and parts[0] == "include" else None)
    if room == "model" and parts[0] == "src" and path.name.startswith(("safetensors", "state_dict_pickle")):
        room = "model_formats"
    if room == "model" and parts[0] == "src" and path.name.startswith("dnnl_gemm"):
        room = "model_dnnl"
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

for f in findings:
    print(f)
print(f"architecture rules: {len(graph)} core libraries, {len(findings)} findings")
sys.exit(1 if findings else 0)
