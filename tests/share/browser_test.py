#!/usr/bin/env python3
"""The shared page (docs/share.md, issue 46) in a real browser: headless Chromium driven over its DevTools
protocol on a pipe (--remote-debugging-pipe: we write NUL-terminated JSON commands to its fd 3 and read replies
and events from its fd 4). Python's standard library only.

For a snippet with hostile text (</script>, <!--, U+2028, emoji, CJK) exported with --layers it checks that the page
loads from file:// with no console error, no exception and no network request; that the embedded JSON is eval's
document; that clicking a token shows eval's NtP; that every node's value equals `ascviz-cli eval --aggregation T`
for T = median, mean, max, min and for the children scope; that a node folds; that the layer slider gives
`eval --layers`' values at every layer. For a run page (batch of a few snippets) it checks the same load rules,
sorting and opening a snippet. A screenshot of each state is written to $ASCVIZ_SHARE_SHOTS (a folder) when set,
else to a temporary folder that is removed.

Usage: browser_test.py --cli ascviz-cli --chromium /usr/bin/chromium [--model default]
Exit 0 when every check holds; else the failures, one a line, and exit 1.
"""
import argparse
import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return cond


class Browser:
    """Chromium with --remote-debugging-pipe; one page target in flat session mode."""

    def __init__(self, chromium, profile):
        to_child_r, self._to_child_w = os.pipe()
        self._from_child_r, from_child_w = os.pipe()

        def fds():  # in the child: its fd 3 reads our commands, its fd 4 writes to us (whatever numbers we got)
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            r2, w2 = os.dup2(r, 100), os.dup2(w, 101)
            os.dup2(r2, 3, inheritable=True)
            os.dup2(w2, 4, inheritable=True)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + str(profile), "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--proxy-server=127.0.0.1:9", "--window-size=1400,1000", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4, to_child_r, from_child_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._next = 0
        self._replies = {}
        self.events = []
        self._cv = threading.Condition()
        threading.Thread(target=self._reader, daemon=True).start()
        self.session = None

    def _reader(self):
        buf = b""
        while True:
            chunk = os.read(self._from_child_r, 1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                m = json.loads(msg)
                with self._cv:
                    if "id" in m:
                        self._replies[m["id"]] = m
                    else:
                        self.events.append(m)
                    self._cv.notify_all()

    def send(self, method, params=None, session=True, timeout=30):
        with self._cv:
            self._next += 1
            mid = self._next
        msg = {"id": mid, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_child_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        with self._cv:
            while mid not in self._replies:
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError(method)
                self._cv.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send("Network.emulateNetworkConditions",
                  {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, url):
        self.events.clear()
        self.send("Page.navigate", {"url": url})
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.eval("document.readyState === 'complete' && document.body && "
                         "document.body.dataset.ready === 'true'"):
                return True
            time.sleep(0.1)
        return False

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluate {expr!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def click(self, selector):
        """A real mouse click at the centre of the element (scrolled into view)."""
        box = self.eval(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: 'center', inline: 'center'}});
            const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        if not check(box is not None, f"no element {selector} to click"):
            return False
        x, y = box
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        return True

    def key(self, key, code, vk):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                 "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk})

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def problems(self):
        """Console errors, exceptions and network requests other than the page's own file:// and data: URLs."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:400])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append("console." + p["type"] + ": " + json.dumps(p.get("args"))[:400])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log: " + p["entry"].get("text", "")[:400])
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not (url.startswith("file://") or url.startswith("data:")):
                    out.append("network request: " + url)
        return out

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child_w)


def cli(args, cli_path):
    r = subprocess.run([cli_path] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ascviz-cli {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r


def same(a, b, tol=1e-9, where="$"):
    """Structural equality, numbers within tol (two runs of the model)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
        for k in a:
            d = same(a[k], b[k], tol, f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: lengths {len(a)} and {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, tol, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return None if abs(a - b) <= tol else f"{where}: {a} != {b}"
    return None if a == b else f"{where}: {a!r} != {b!r}"


def node_values(b):
    return b.eval("Array.from(document.querySelectorAll('#ast g.node')).map(g => "
                  "[Number(g.dataset.id), g.dataset.value === 'null' ? null : Number(g.dataset.value)])")


def compare_nodes(b, expected, what):
    b.eval("document.getElementById('unfold-all').click()")  # every node drawn (Fit may have folded deep levels)
    got = dict(node_values(b))
    if not check(len(got) == len(expected), f"{what}: {len(got)} nodes drawn, eval has {len(expected)}"):
        return
    worst = 0.0
    for i, v in enumerate(expected):
        g = got.get(i, "missing")
        if v is None or g is None or g == "missing":
            if not check(v == g, f"{what}: node {i} is {g}, eval says {v}"):
                return
            continue
        worst = max(worst, abs(g - v))
    # The page computes θ in double precision from the same token values with core's definitions: equal values.
    check(worst == 0.0, f"{what}: node values differ from eval's by up to {worst}")
    print(f"ok: {what}: {len(expected)} node values equal eval's (largest difference {worst})", flush=True)


HOSTILE = ('def greet(name):\n'
           '    """Say 你好 </script><script>alert(1)</script> <!-- x"""\n'
           '    sep = "\u2028"\n'
           '    return f"{name} 😀 </SCRIPT >" + sep\n'
           '\n'
           'def total(xs):\n'
           '    t = 0\n'
           '    for x in xs:\n'
           '        if x > 0:\n'
           '            t += x\n'
           '    return t\n')


FIT_STATE = ("(() => { const svg = document.getElementById('ast'); const r = svg.getBoundingClientRect(); "
             "const vb = svg.viewBox.baseVal; const nodes = Array.from(document.querySelectorAll('#ast g.node')); "
             "const doc = JSON.parse(document.getElementById('ascviz-data').textContent); "
             "return {scale: Math.min(r.width / vb.width, r.height / vb.height), "
             "inside: nodes.every(g => { const x = Number(g.dataset.x), y = Number(g.dataset.y); "
             "return x >= vb.x && x <= vb.x + vb.width && y >= vb.y && y <= vb.y + vb.height; }), "
             "drawn: nodes.map(g => Number(g.dataset.id)), "
             "folded: nodes.filter(g => g.classList.contains('folded')).map(g => Number(g.dataset.id)), "
             "depth: doc.nodes.map(n => n.depth)}; })()")


def fit_checks(b, work, shots, cli_path, model):
    # Issue 54: the page opens fitted to what is readable, the deepest levels folded first as the GUI's Fit does (it
    # opened on a root-centred crop, and Fit drew a 1,300 px strip of ~4 px text).
    src = work / "wide.py"
    src.write_text("def wide(a, b):\n" + "".join(f"    v{i} = f(g(a, h(b, {i})), b * a)\n" for i in range(30)),
                   encoding="utf-8")
    page = work / "wide.html"
    cli(["export-html", "--model", model, "--text-file", str(src), "--out", str(page)], cli_path)
    check(b.navigate(page.as_uri()), "the wide page did not become ready")
    for what in ("opened", "after Fit"):
        if what == "after Fit":
            b.eval("document.getElementById('unfold-all').click()")
            b.click('.zoombar button:nth-child(3)')
        st = b.eval(FIT_STATE)
        check(st["scale"] >= 0.6 - 1e-9, f"{what}: labels drawn at {st['scale']:.2f} of their size (< 0.6)")
        check(st["inside"], f"{what}: not every drawn node is in view")
        check(len(st["folded"]) > 0, f"{what}: the wide tree is not folded (it cannot be readable whole)")
        depths = {st["depth"][n] for n in st["folded"]}
        check(len(depths) == 1, f"{what}: the folded nodes are at several depths {sorted(depths)}")
        d = depths.pop()
        check(all(st["depth"][n] <= d for n in st["drawn"]), f"{what}: a node below the fold depth {d} is drawn")
        print(f"ok: wide tree {what}: folded at depth {d} ({len(st['drawn'])} nodes drawn), labels at "
              f"{st['scale']:.2f}", flush=True)
    b.screenshot(shots / "0-wide-fitted.png")


def snippet_checks(b, work, shots, cli_path, model):
    src = work / "hostile.py"
    src.write_text(HOSTILE, encoding="utf-8")
    page = work / "snippet.html"
    cli(["export-html", "--model", model, "--text-file", str(src), "--layers", "--out", str(page)], cli_path)
    evals = {}
    for theta in ("median", "mean", "max", "min"):
        evals[theta] = json.loads(cli(["eval", "--model", model, "--text-file", str(src), "--aggregation", theta],
                                      cli_path).stdout)
    children = json.loads(cli(["eval", "--model", model, "--text-file", str(src), "--aggregation-scope", "children"],
                              cli_path).stdout)
    layered = json.loads(cli(["eval", "--model", model, "--text-file", str(src), "--layers"], cli_path).stdout)

    # the data a reader extracts without a browser: the element's text is JSON, '<' escaped
    html = page.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="ascviz-data">(.*?)</script>', html, re.S)
    check(m is not None, "the page has no ascviz-data element")
    raw = m.group(1)
    check("</" not in raw and "<!--" not in raw and "\u2028" not in raw,
          "the embedded JSON holds '</', '<!--' or a raw U+2028")
    doc = json.loads(raw)
    check(doc.get("text") == HOSTILE, "the embedded text differs from the file")
    mine = {k: v for k, v in doc.items() if k not in ("text", "share")}
    d = same(mine, layered)
    check(d is None, f"the embedded document is not eval --layers' document: {d}")
    check("</script>" in doc["text"] and "😀" in doc["text"] and "你好" in doc["text"],
          "the hostile strings did not survive the embedding")

    ok = b.navigate(page.as_uri())
    check(ok, "the snippet page did not become ready")
    b.screenshot(shots / "1-snippet-loaded.png")
    check(not b.problems(), f"loading the snippet page: {b.problems()}")
    # the driver itself sees console errors (else "no console error" would prove nothing)
    b.eval("console.error('probe from the test')")
    time.sleep(0.3)
    check(any("probe from the test" in p for p in b.problems()), "the driver does not see console errors")
    # and a request the page would try is refused by its Content-Security-Policy (and seen by the driver)
    b.eval("fetch('https://example.invalid/x.js').catch(() => null)")
    time.sleep(0.5)
    check(any("Content Security Policy" in p or "example.invalid" in p for p in b.problems()),
          f"a fetch from the page was neither refused by its CSP nor seen: {b.problems()}")
    b.events.clear()
    in_page = b.eval("JSON.parse(document.getElementById('ascviz-data').textContent).text")
    check(in_page == HOSTILE, "the browser's parse of the embedded text differs from the file")
    check(b.eval("document.querySelectorAll('script').length") == 2,
          "the hostile text ended the data element early (more than two script elements)")

    # a token: its NtP in the panel equals eval's
    want = [i for i, t in enumerate(layered["tokens"]) if t["ntp"] is not None]
    cjk = next(i for i, t in enumerate(layered["tokens"])
               if "你" in HOSTILE.encode("utf-8")[t["start"]:t["end"]].decode("utf-8", "replace"))
    for i in (want[3], cjk):
        b.click(f'#code .tok[data-i="{i}"]')
        shown = b.eval("(() => { const e = document.getElementById('panel-ntp'); return e && e.dataset.value; })()")
        expect = layered["tokens"][i]["ntp"]
        check(shown is not None and float(shown) == expect, f"token {i}: the panel shows NtP {shown}, eval {expect}")
    print(f"ok: clicked tokens {want[3]} and {cjk}: the panel's NtP equals eval's", flush=True)
    b.screenshot(shots / "2-token-clicked.png")
    tip = b.eval("document.getElementById('tip').hidden")
    check(tip is False, "hovering a token shows no tooltip")

    # θ and scope
    for theta in ("mean", "max", "min", "median"):
        b.eval(f"(() => {{ const s = document.getElementById('theta'); s.value = '{theta}'; "
               "s.dispatchEvent(new Event('change')); })()")
        compare_nodes(b, [n["asc_eval"] for n in evals[theta]["nodes"]], f"θ = {theta}")
        got = b.eval("Number(document.getElementById('summary-asc-eval').dataset.value)")
        check(got == evals[theta]["summary"]["asc_eval"],
              f"θ = {theta}: the header's AsC-Eval {got} != eval's {evals[theta]['summary']['asc_eval']}")
        if theta == "max":
            b.screenshot(shots / "3-theta-max.png")
    b.eval("(() => { const s = document.getElementById('scope'); s.value = 'children'; "
           "s.dispatchEvent(new Event('change')); })()")
    compare_nodes(b, [n["asc_eval"] for n in children["nodes"]], "θ = median over children")
    b.screenshot(shots / "4-scope-children.png")
    b.eval("(() => { const s = document.getElementById('scope'); s.value = 'tokens'; "
           "s.dispatchEvent(new Event('change')); })()")

    # fold the first function definition: its descendants leave the tree, the node says so
    fn = next(n["id"] for n in layered["nodes"] if n["type"] == "function_definition")
    below = sum(1 for n in layered["nodes"] if n["id"] != fn and is_below(layered["nodes"], n["id"], fn))
    b.eval("document.getElementById('unfold-all').click()")
    before = len(node_values(b))
    b.eval(f"document.querySelector('#ast g.node[data-id=\"{fn}\"]').dispatchEvent(new MouseEvent('click', "
           "{bubbles: true}))")
    check(b.eval("document.querySelector('#panel h2').textContent").startswith(f"Node {fn}:"),
          "clicking a node does not show it in the panel")
    b.click("#fold")
    after = len(node_values(b))
    check(before - after == below, f"folding node {fn} hid {before - after} nodes, it has {below} below it")
    check(b.eval(f"document.querySelector('#ast g.node[data-id=\"{fn}\"]').getAttribute('aria-expanded')") == "false",
          "a folded node is not marked aria-expanded=false")
    b.screenshot(shots / "5-folded.png")
    b.click("#fold")
    check(len(node_values(b)) == before, "unfolding does not bring the nodes back")

    # keyboard: Tab into the tokens, arrows move the focus
    b.eval("document.querySelector('#code .tok[tabindex=\"0\"]').focus()")
    b.key("ArrowRight", "ArrowRight", 39)
    b.key("ArrowRight", "ArrowRight", 39)
    check(b.eval("document.activeElement.dataset.i") == "2", "the right arrow does not move through the tokens")
    b.eval("document.querySelector('#ast g.node[data-id=\"0\"]').focus()")
    b.key("ArrowDown", "ArrowDown", 40)
    check(b.eval("document.activeElement.dataset.id") == "1", "the down arrow does not move to a node's first child")

    # the layer slider, moved with the keyboard from the last layer down to the embeddings
    L = layered["layers"]
    b.eval("document.getElementById('layer').focus()")
    for layer in range(L, -1, -1):
        if layer < L:
            b.key("ArrowLeft", "ArrowLeft", 37)
        check(b.eval("Number(document.getElementById('layer').value)") == layer, f"the slider is not at layer {layer}")
        compare_nodes(b, [n["asc_eval_layers"][layer] for n in layered["nodes"]], f"layer {layer}")
        if layer == L // 2:
            b.screenshot(shots / "6-layer-middle.png")
    check(not b.problems(), f"driving the snippet page: {b.problems()}")


def drawn_arcs(b):
    return b.eval("Array.from(document.querySelectorAll('#arcs .arc')).map(e => "
                  "[Number(e.dataset.q), Number(e.dataset.k), Number(e.dataset.w)])")


def expected_arcs(attention, layer, head, bos):
    out = []
    for q, flat in enumerate(attention["rows"][layer][head]):
        for k, w in zip(flat[0::2], flat[1::2]):
            if k >= 0 or bos:
                out.append([q, k, w])
    return out


def heads_checks(b, work, shots, cli_path, model):
    """export-html --heads: pick a head, its arcs are drawn with eval --heads' attention weights."""
    src = work / "heads.py"
    src.write_text(HOSTILE, encoding="utf-8")
    page = work / "heads.html"
    cli(["export-html", "--model", model, "--text-file", str(src), "--heads", "--out", str(page)], cli_path)
    evald = json.loads(cli(["eval", "--model", model, "--text-file", str(src), "--heads"], cli_path).stdout)
    att = evald["attention"]
    html = page.read_text(encoding="utf-8")
    doc = json.loads(re.search(r'<script type="application/json" id="ascviz-data">(.*?)</script>', html, re.S).group(1))
    d = same({k: v for k, v in doc.items() if k not in ("text", "share")}, evald)
    check(d is None, f"the --heads page's document is not eval --heads' document: {d}")
    check(len(att["rows"]) == att["layers"] and all(len(r) == att["heads"] for r in att["rows"]) and
          all(len(q) == len(evald["tokens"]) for r in att["rows"] for q in r),
          "eval --heads' rows are not layers × heads × tokens")
    ok = b.navigate(page.as_uri())
    check(ok, "the heads page did not become ready")
    check(not b.problems(), f"loading the heads page: {b.problems()}")
    got = drawn_arcs(b)
    want = expected_arcs(att, 0, 0, False)
    check(got == want, f"head 0.0: {len(got)} arcs drawn, eval has {len(want)}; first differences "
                       f"{[x for x in got if x not in want][:3]} / {[x for x in want if x not in got][:3]}")
    layer, head = att["layers"] - 1, att["heads"] - 1
    for sel, v in (("head-layer", layer), ("head-head", head)):
        b.eval(f"(() => {{ const s = document.getElementById('{sel}'); s.value = '{v}'; "
               "s.dispatchEvent(new Event('change')); })()")
    got = drawn_arcs(b)
    want = expected_arcs(att, layer, head, False)
    check(len(want) > 0 and got == want, f"head {layer}.{head}: the arcs drawn differ from eval --heads' weights "
                                         f"({len(got)} drawn, {len(want)} expected)")
    print(f"ok: head {layer}.{head}: {len(got)} arcs, each weight equal to eval --heads'", flush=True)
    b.screenshot(shots / "9-heads.png")
    has_bos = any(k < 0 for layer_rows in att["rows"] for head_rows in layer_rows for row in head_rows
                  for k in row[0::2])
    check(b.eval("document.getElementById('arcs-bos') !== null") == has_bos,
          f"the BOS switch is {'missing' if has_bos else 'shown for a model without BOS'}")
    if has_bos:
        b.click("#arcs-bos")
        got = drawn_arcs(b)
        want = expected_arcs(att, layer, head, True)
        check(got == want, f"with arcs to BOS: {len(got)} drawn, eval has {len(want)} (BOS keys included)")
    print(f"ok: the BOS switch is there only with BOS keys (the model {'adds' if has_bos else 'adds no'} BOS)",
          flush=True)
    # a token: its arcs are the selected ones, and the panel lists its keys
    q = max(range(len(evald["tokens"])), key=lambda i: len(att["rows"][layer][head][i]))
    b.click(f'#code .tok[data-i="{q}"]')
    sel = b.eval("Array.from(document.querySelectorAll('#arcs .arc.sel')).map(e => "
                 "[Number(e.dataset.q), Number(e.dataset.k)])")
    want_sel = [[x[0], x[1]] for x in want if x[0] == q or x[1] == q]
    check(sorted(sel) == sorted(want_sel), f"token {q}: selected arcs {sel}, expected {want_sel}")
    text = b.eval("document.getElementById('panel').textContent")
    check(f"head {layer}.{head} attends to" in text, "the panel does not list the token's keys for the head")
    b.screenshot(shots / "10-heads-token.png")
    check(not b.problems(), f"driving the heads page: {b.problems()}")


def attribution_and_scores_checks(b, work, shots, cli_path, model):
    """export-html --attribution all: the list and the panel show attribute's values; --scores: eval --scores' NtP."""
    src = work / "attr.py"
    src.write_text(HOSTILE, encoding="utf-8")
    prompt = str(HOSTILE.encode("utf-8").index(b"def total"))
    page = work / "attr.html"
    common = ["--model", model, "--text-file", str(src), "--prompt-bytes", prompt]
    cli(["export-html"] + common + ["--attribution", "all", "--out", str(page)], cli_path)
    att = json.loads(cli(["attribute"] + common + ["--target", "all", "--json", "--quiet"], cli_path).stdout)
    ok = b.navigate(page.as_uri())
    check(ok, "the attribution page did not become ready")
    check(not b.problems(), f"loading the attribution page: {b.problems()}")
    listed = b.eval("document.querySelectorAll('#attribution li').length")
    values = [n for n in att["nodes"] if n["attribution"] is not None]
    check(listed == min(40, len(values)), f"the list has {listed} nodes, attribute gives {len(values)} (at most 40)")
    top = max(values, key=lambda n: abs(n["attribution"]))
    b.click("#attribution li button.link")  # the first: the largest magnitude
    shown = b.eval("(() => { const e = document.getElementById('panel-attr'); return e && e.dataset.value; })()")
    check(shown is not None and float(shown) == top["attribution"],
          f"the panel shows attribution {shown} for node {top['id']}, attribute says {top['attribution']}")
    header = b.eval("document.querySelector('#panel h2').textContent")
    check(header.startswith(f"Node {top['id']}:"), f"the list's first entry opens {header}, not node {top['id']}")
    b.eval("(() => { const s = document.getElementById('colour'); s.value = 'attr'; "
           "s.dispatchEvent(new Event('change')); })()")
    b.screenshot(shots / "11-attribution.png")
    print(f"ok: attribution: the panel shows attribute's {top['attribution']} for node {top['id']}", flush=True)

    scores = work / "scores.json"
    scores.write_text(cli(["score", "--model", model, "--text-file", str(src)], cli_path).stdout, encoding="utf-8")
    page2 = work / "scores.html"
    cli(["export-html", "--scores", str(scores), "--text-file", str(src), "--out", str(page2)], cli_path)
    ev = json.loads(cli(["eval", "--scores", str(scores), "--text-file", str(src)], cli_path).stdout)
    ok = b.navigate(page2.as_uri())
    check(ok, "the --scores page did not become ready")
    check(not b.problems(), f"loading the --scores page: {b.problems()}")
    i = next(k for k, t in enumerate(ev["tokens"]) if t["ntp"] is not None and k > 5)
    b.click(f'#code .tok[data-i="{i}"]')
    shown = b.eval("(() => { const e = document.getElementById('panel-ntp'); return e && e.dataset.value; })()")
    check(shown is not None and float(shown) == ev["tokens"][i]["ntp"],
          f"--scores page: token {i} shows NtP {shown}, eval --scores {ev['tokens'][i]['ntp']}")
    compare_nodes(b, [n["asc_eval"] for n in ev["nodes"]], "--scores page")
    check(b.eval("document.querySelector('.settings').textContent").find("not recorded") >= 0,
          "a --scores page does not say the fingerprint is not recorded")
    check(not b.problems(), f"driving the attribution and --scores pages: {b.problems()}")


def is_below(nodes, nid, ancestor):
    p = nodes[nid]["parent"]
    while p is not None:
        if p == ancestor:
            return True
        p = nodes[p]["parent"]
    return False


def run_checks(b, work, shots, cli_path, model):
    db = work / "run.db"
    cli(["batch", "--model", model, "--corpus", "default", "--limit", "6", "--db", str(db), "--quiet"], cli_path)
    page = work / "run.html"
    cli(["export-html", "--db", str(db), "--out", str(page)], cli_path)
    ok = b.navigate(page.as_uri())
    check(ok, "the run page did not become ready")
    b.screenshot(shots / "7-run.png")
    check(not b.problems(), f"loading the run page: {b.problems()}")
    rows = b.eval("document.querySelectorAll('#snippets tbody tr').length")
    check(rows == 6, f"the run page lists {rows} snippets, the run has 6")
    order = b.eval("Array.from(document.querySelectorAll('#snippets tbody tr td:nth-child(4)')).map(t => t.textContent)")
    check(order == sorted(order, reverse=True), f"the snippets are not sorted by AsC-Eval, highest first: {order}")
    b.click('button.sort[data-key="asc_eval"]')
    order2 = b.eval("Array.from(document.querySelectorAll('#snippets tbody tr td:nth-child(4)')).map(t => t.textContent)")
    check(order2 == sorted(order, reverse=False), f"clicking AsC-Eval does not sort lowest first: {order2}")
    first = b.eval("document.querySelector('#snippets tbody tr').dataset.index")
    b.click("#snippets tbody tr a")
    time.sleep(0.3)
    check(b.eval("document.getElementById('run').hidden") is True, "opening a snippet does not show its view")
    doc = b.eval(f"JSON.parse(document.getElementById('ascviz-data').textContent).snippets"
                 f".find(s => String(s.index) === '{first}').eval")
    compare_nodes(b, [n["asc_eval"] for n in doc["nodes"]], f"run page, snippet {first}")
    ids = b.eval("Array.from(document.querySelectorAll('linearGradient')).map(g => g.id)")
    check(len(ids) == len(set(ids)), f"legend gradients share an id (a hidden one paints nothing): {ids}")
    b.screenshot(shots / "8-run-snippet.png")
    b.click("#back")
    time.sleep(0.3)
    check(b.eval("document.getElementById('run').hidden") is False, "the back link does not return to the run")
    check(not b.problems(), f"driving the run page: {b.problems()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--model", default="default")
    a = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="ascviz-share-"))
    shots = pathlib.Path(os.environ["ASCVIZ_SHARE_SHOTS"]) if os.environ.get("ASCVIZ_SHARE_SHOTS") else work / "shots"
    shots.mkdir(parents=True, exist_ok=True)
    b = Browser(a.chromium, work / "profile")
    try:
        b.open_page()
        snippet_checks(b, work, shots, a.cli, a.model)
        fit_checks(b, work, shots, a.cli, a.model)
        heads_checks(b, work, shots, a.cli, a.model)
        attribution_and_scores_checks(b, work, shots, a.cli, a.model)
        run_checks(b, work, shots, a.cli, a.model)
    except Exception as e:  # a broken driver step is a failure, named
        FAILURES.append(f"{type(e).__name__}: {e}")
        print("FAIL:", FAILURES[-1], flush=True)
    finally:
        b.close()
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("all browser checks passed" + (f"; screenshots in {shots}" if os.environ.get("ASCVIZ_SHARE_SHOTS") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
