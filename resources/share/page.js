// AsC-Viz shared page (docs/share.md): the views of one evaluated snippet, or of a run, drawn from the JSON in
// <script id="ascviz-data">. Plain JavaScript and inline SVG; nothing is fetched. Written for this project.
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var THETAS = ['median', 'mean', 'max', 'min'];

  // ---- small DOM helpers
  function h(tag, attrs, kids) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }
  function s(tag, attrs, kids) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }
  function setAttrs(e, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'text') e.textContent = v;
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    });
  }
  function append(e, kids) {
    if (kids === null || kids === undefined) return;
    if (!Array.isArray(kids)) kids = [kids];
    kids.forEach(function (k) {
      if (k === null || k === undefined || k === false) return;
      e.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
    });
  }
  function fmt(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return 'n/a';
    return Number(v).toFixed(digits === undefined ? 3 : digits);
  }

  // ---- the AsC-Eval colours: the same scale as core (render/layout.cpp ascColor: ColorBrewer RdBu, red 0,
  // white 0.5, blue 1, grey n/a; a diverging red-blue scale that colour-blind readers tell apart) and the same
  // text rule (textColourOn: white below a WCAG relative luminance of 0.3).
  function ascColor(v) {
    if (v === null || v === undefined || !isFinite(v)) return [200, 200, 200];
    v = Math.min(1, Math.max(0, v));
    var red = [202, 0, 32], white = [255, 255, 255], blue = [5, 113, 176];
    var a = v < 0.5 ? red : white, b = v < 0.5 ? white : blue;
    var t = v < 0.5 ? v / 0.5 : (v - 0.5) / 0.5;
    return [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * t); });
  }
  function luminance(c) {
    var l = c.map(function (x) {
      x /= 255;
      return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  function rgb(c) { return 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')'; }
  function textOn(c) { return luminance(c) < 0.3 ? '#ffffff' : '#111111'; }
  function faint(c) { // a whitespace token: its colour at an eighth of its strength (as render's default)
    return c.map(function (x) { return Math.round(255 + (x - 255) / 8); });
  }
  // Signed attribution: purple (negative) - white - green (positive), scaled by the largest magnitude.
  function signedColor(v, maxAbs) {
    if (v === null || v === undefined || !isFinite(v) || !maxAbs) return [200, 200, 200];
    var t = Math.min(1, Math.abs(v) / maxAbs);
    var end = v < 0 ? [118, 42, 131] : [27, 120, 55];
    return [0, 1, 2].map(function (k) { return Math.round(255 + (end[k] - 255) * t); });
  }

  // ---- θ, as core computes it (eval.cpp aggregate / computeValues / computeFeatures; method.md §4)
  function aggregate(values, theta) {
    if (!values.length) return null;
    if (theta === 'mean') {
      var sum = 0;
      for (var i = 0; i < values.length; i++) sum += values[i];
      return sum / values.length;
    }
    if (theta === 'max') return Math.max.apply(null, values);
    if (theta === 'min') return Math.min.apply(null, values);
    var v = values.slice().sort(function (x, y) { return x - y; });
    var mid = v.length >> 1;
    return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }
  // Node values for θ and scope over the tokens' NtP at `layer` (null = the final NtP).
  function nodeValues(doc, kids, theta, scope, layer) {
    var ntp = doc.tokens.map(function (t) {
      var p = layer === null || !t.ntp_layers ? t.ntp : t.ntp_layers[layer];
      return p === undefined ? null : p;
    });
    var out = doc.nodes.map(function (n) {
      var vals = [];
      n.tokens.forEach(function (ti) { if (ntp[ti] !== null) vals.push(ntp[ti]); });
      return aggregate(vals, theta);
    });
    if (scope === 'children') {
      for (var i = doc.nodes.length - 1; i >= 0; i--) {
        if (!kids[i].length) continue;
        var vals = [];
        kids[i].forEach(function (c) { if (out[c] !== null) vals.push(out[c]); });
        out[i] = aggregate(vals, theta);
      }
    }
    return out;
  }
  function snippetAscEval(values) {
    var sum = 0, n = 0;
    values.forEach(function (v) { if (v !== null) { sum += v; n++; } });
    return n ? sum / n : null;
  }

  // ---- the legend: the scale as a gradient, with n/a
  var legendCount = 0;
  function legend(signed) {
    var g = s('svg', {width: 260, height: 34, viewBox: '0 0 260 34', role: 'img', class: 'legend',
      'aria-label': signed ? 'attribution scale: purple negative, white zero, green positive'
        : 'AsC-Eval scale: red 0, white 0.5, blue 1, grey n/a'});
    // a fresh id per legend: a gradient inside a hidden part of the page (the run list while a snippet is open)
    // would paint nothing where another legend refers to it
    var id = (signed ? 'ascviz-grad-signed-' : 'ascviz-grad-') + (++legendCount);
    var grad = s('linearGradient', {id: id, x1: 0, x2: 1, y1: 0, y2: 0});
    for (var i = 0; i <= 10; i++) {
      var c = signed ? signedColor(i / 5 - 1, 1) : ascColor(i / 10);
      grad.appendChild(s('stop', {offset: (i * 10) + '%', 'stop-color': rgb(c)}));
    }
    g.appendChild(s('defs', null, grad));
    g.appendChild(s('rect', {x: 16, y: 4, width: 180, height: 12, fill: 'url(#' + id + ')', stroke: '#666'}));
    var ticks = signed ? ['−max', '0', '+max'] : ['0', '0.5', '1'];
    ticks.forEach(function (t, k) {
      g.appendChild(s('text', {x: 16 + k * 90, y: 29, 'text-anchor': 'middle', 'font-size': 10, text: t}));
    });
    if (!signed) {
      g.appendChild(s('rect', {x: 214, y: 4, width: 14, height: 12, fill: rgb(ascColor(null)), stroke: '#666'}));
      g.appendChild(s('text', {x: 232, y: 14, 'font-size': 10, text: 'n/a'}));
    }
    return g;
  }

  // ============================================================ one snippet
  function SnippetView(root, doc, opts) {
    opts = opts || {};
    var self = this;
    var enc = new TextEncoder(), dec = new TextDecoder();
    var bytes = enc.encode(doc.text || '');
    function slice(a, b) { return dec.decode(bytes.subarray(a, b)); }
    var N = doc.nodes.length;
    var kids = doc.nodes.map(function () { return []; });
    doc.nodes.forEach(function (n) { if (n.parent !== null && n.parent !== undefined) kids[n.parent].push(n.id); });
    var nodesOfToken = doc.tokens.map(function () { return []; });
    doc.nodes.forEach(function (n) { n.tokens.forEach(function (ti) { nodesOfToken[ti].push(n.id); }); });
    var layers = typeof doc.layers === 'number' ? doc.layers : null;
    var attribution = doc.attribution && Array.isArray(doc.attribution.nodes) ? doc.attribution : null;
    var attn = doc.attention && Array.isArray(doc.attention.rows) && doc.attention.rows.length ? doc.attention : null;
    var attrOf = {}, attrMax = 0;
    if (attribution) attribution.nodes.forEach(function (a) {
      attrOf[a.id] = a.attribution;
      if (a.attribution !== null && isFinite(a.attribution)) attrMax = Math.max(attrMax, Math.abs(a.attribution));
    });
    var st = {
      theta: THETAS.indexOf(doc.aggregation) >= 0 ? doc.aggregation : 'median',
      scope: doc.aggregation_scope === 'children' ? 'children' : 'tokens',
      layer: layers,
      view: 'complete',
      colour: 'asc',
      folded: {},
      node: null,
      token: null,
      headLayer: 0,
      head: 0,
      bos: false,
    };
    var values = [];
    var tokenEls = [], nodeEls = {};
    var share = doc.share || {};

    // -- header
    var summaryEl = h('span', {id: 'summary-asc-eval', class: 'num'});
    var settings = [
      ['model', doc.model], ['fingerprint', share.model_fingerprint || 'not recorded'],
      ['dtype', doc.dtype || 'n/a'], ['language', doc.language], ['AsC-Viz', share.ascviz_version || 'n/a'],
      ['tokens', String(doc.tokens.length)], ['AST nodes', String(N)],
    ];
    var thetaSel = h('select', {id: 'theta', 'aria-label': 'aggregation θ', onchange: function () {
      st.theta = thetaSel.value; recompute();
    }}, THETAS.map(function (t) { return h('option', {value: t, selected: t === st.theta, text: t}); }));
    var scopeSel = h('select', {id: 'scope', 'aria-label': 'aggregation scope', onchange: function () {
      st.scope = scopeSel.value; recompute();
    }}, ['tokens', 'children'].map(function (t) { return h('option', {value: t, selected: t === st.scope, text: t}); }));
    var viewSel = h('select', {id: 'astview', 'aria-label': 'AST view', onchange: function () {
      st.view = viewSel.value; fitFolded();
    }}, [h('option', {value: 'complete', text: 'complete'}), h('option', {value: 'partial', text: 'partial'})]);
    var controls = h('div', {class: 'controls'}, [
      h('label', null, ['θ ', thetaSel]), h('label', null, [' scope ', scopeSel]), h('label', null, [' AST ', viewSel]),
    ]);
    var layerLabel = null, slider = null;
    if (layers !== null) {
      layerLabel = h('output', {id: 'layer-label'});
      slider = h('input', {type: 'range', id: 'layer', min: 0, max: layers, step: 1, value: layers,
        'aria-label': 'layer of the layer lens (0 = embeddings)', oninput: function () {
          st.layer = Number(slider.value); recompute();
        }});
      controls.appendChild(h('label', {class: 'layer'}, [' layer ', slider, ' ', layerLabel]));
    }
    if (attribution) {
      var colourSel = h('select', {id: 'colour', 'aria-label': 'node colours', onchange: function () {
        st.colour = colourSel.value; recompute();
      }}, [h('option', {value: 'asc', text: 'AsC-Eval'}), h('option', {value: 'attr', text: 'attribution'})]);
      controls.appendChild(h('label', null, [' colour ', colourSel]));
    }
    var header = h('header', {class: 'head'}, [
      h('h1', null, [opts.title || 'AsC-Viz: ' + doc.model, ' — AsC-Eval ', summaryEl]),
      h('dl', {class: 'settings'}, settings.reduce(function (acc, kv) {
        return acc.concat([h('dt', {text: kv[0]}), h('dd', {text: kv[1]})]);
      }, []).concat([h('dt', {text: 'θ'}), h('dd', {id: 'theta-shown'})])),
      controls,
      h('div', {class: 'legends'}, [legend(false), attribution ? legend(true) : null]),
    ]);

    // -- code
    var pre = h('pre', {class: 'code', id: 'code', role: 'listbox', 'aria-label': 'tokens of the code'});
    var pos = 0;
    doc.tokens.forEach(function (t, i) {
      if (t.start > pos) pre.appendChild(document.createTextNode(slice(pos, t.start)));
      var start = Math.max(t.start, pos);
      var text = slice(start, t.end);
      var span = h('span', {class: 'tok' + (t.generated ? ' gen' : '') + (/^\s*$/.test(text) ? ' ws' : ''),
        'data-i': i, tabindex: i === 0 ? 0 : -1, role: 'option', text: text});
      tokenEls.push(span);
      pre.appendChild(span);
      pos = Math.max(pos, t.end);
    });
    if (pos < bytes.length) pre.appendChild(document.createTextNode(slice(pos, bytes.length)));
    pre.addEventListener('click', function (e) {
      var t = e.target.closest('.tok');
      if (t) selectToken(Number(t.dataset.i));
    });
    pre.addEventListener('mouseover', function (e) {
      var t = e.target.closest('.tok');
      if (t) showTip(Number(t.dataset.i), t);
    });
    pre.addEventListener('mouseout', function () { tip.hidden = true; });
    pre.addEventListener('focusin', function (e) {
      var t = e.target.closest('.tok');
      if (t) showTip(Number(t.dataset.i), t);
    });
    pre.addEventListener('focusout', function () { tip.hidden = true; });
    pre.addEventListener('keydown', function (e) {
      var t = e.target.closest('.tok');
      if (!t) return;
      var i = Number(t.dataset.i), j = i;
      if (e.key === 'ArrowRight' || e.key === 'ArrowDown') j = Math.min(doc.tokens.length - 1, i + 1);
      else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') j = Math.max(0, i - 1);
      else if (e.key === 'Home') j = 0;
      else if (e.key === 'End') j = doc.tokens.length - 1;
      else if (e.key === 'Enter' || e.key === ' ') { selectToken(i); e.preventDefault(); return; }
      else return;
      e.preventDefault();
      focusToken(j);
    });
    function focusToken(j) {
      tokenEls.forEach(function (x) { x.tabIndex = -1; });
      tokenEls[j].tabIndex = 0;
      tokenEls[j].focus();
    }
    var tip = h('div', {class: 'tip', role: 'tooltip', id: 'tip', hidden: true});

    function tokenNtp(i) {
      var t = doc.tokens[i];
      if (st.layer !== null && st.layer !== layers && t.ntp_layers) return t.ntp_layers[st.layer];
      return t.ntp;
    }
    function tokenLines(i) {
      var t = doc.tokens[i], p = tokenNtp(i);
      var rows = [['token', i + ' · id ' + t.id + ' · ' + JSON.stringify(slice(t.start, t.end))],
        ['NtP' + (st.layer !== null && st.layer !== layers ? ' (layer ' + st.layer + ')' : ''),
          p === null ? 'n/a (nothing predicts it)' : fmt(p, 4) + ' (CE ' + fmt(-Math.log(p), 3) + ' nats)'],
        ['part', t.generated ? 'generated' : 'prompt']];
      if (t.straddles) rows.push(['straddles', 'crosses an AST leaf boundary']);
      if (t.commit_layer !== undefined && t.commit_layer !== null) rows.push(['commits at layer', String(t.commit_layer)]);
      if (t.top && t.top.length) rows.push(['top-k', t.top.map(function (a) {
        return JSON.stringify(a.text !== undefined ? a.text : String(a.id)) + ' ' + fmt(a.prob !== undefined ? a.prob : a.p, 3);
      }).join(', ')]);
      if (t.experts && t.experts.length) rows.push(['experts', t.experts.map(function (e) {
        return 'L' + e.layer + ': ' + e.ids.map(function (id, k) { return id + ' (' + fmt(e.probs[k], 2) + ')'; }).join(' ');
      }).join('; ')]);
      rows.push(['nodes', nodesOfToken[i].map(function (n) { return doc.nodes[n].type; }).join(' › ') || 'none']);
      if (attn) rows.push(['head ' + st.headLayer + '.' + st.head + ' attends to', headKeys(i).map(function (kw) {
        var k = kw[0];
        return (k < 0 ? 'BOS' : k + ' ' + JSON.stringify(slice(doc.tokens[k].start, doc.tokens[k].end))) + ' ' + fmt(kw[1], 3);
      }).join(', ') || 'no key of weight ≥ ' + attn.min_weight]);
      return rows;
    }
    function showTip(i, anchor) {
      tip.textContent = '';
      tokenLines(i).forEach(function (r) { tip.appendChild(h('div', null, [h('b', {text: r[0] + ': '}), r[1]])); });
      var b = anchor.getBoundingClientRect();
      tip.style.left = (window.scrollX + b.left) + 'px';
      tip.style.top = (window.scrollY + b.bottom + 4) + 'px';
      tip.hidden = false;
    }

    // -- AST
    var svgEl = s('svg', {class: 'ast', id: 'ast', role: 'tree', 'aria-label': 'abstract syntax tree'});
    var treeG = s('g');
    svgEl.appendChild(treeG);
    var vb = {x: 0, y: 0, w: 100, h: 100}, bounds = {w: 100, h: 100};
    function setViewBox() { svgEl.setAttribute('viewBox', [vb.x, vb.y, vb.w, vb.h].join(' ')); }
    function fit() {
      vb = {x: -10, y: -10, w: Math.max(bounds.w + 20, 200), h: Math.max(bounds.h + 20, 120)};
      setViewBox();
    }
    // Fit and the first view (issue 54, as the GUI's Fit): the whole tree when its labels stay readable (at least
    // 0.6 of their size) in the pane; else the deepest levels are folded first ("+n folded" on the nodes), one
    // level at a time, until what is left is readable; then all of it is in view. Unfold all shows every node.
    function readable() {
      var r = svgEl.getBoundingClientRect();
      if (!r.width || !r.height) return true;
      return Math.min(r.width / Math.max(bounds.w + 20, 200), r.height / Math.max(bounds.h + 20, 120)) >= 0.6;
    }
    function fitFolded() {
      st.folded = {};
      drawTree();
      if (!readable()) {
        var depth = {}, maxDepth = 0, q = [[0, 0]];
        while (q.length) {
          var it = q.pop();
          depth[it[0]] = it[1];
          maxDepth = Math.max(maxDepth, it[1]);
          visibleKids(it[0]).forEach(function (c) { q.push([c, it[1] + 1]); });
        }
        for (var d = maxDepth - 1; d >= 0; d--) {
          st.folded = {};
          Object.keys(depth).forEach(function (id) {
            if (depth[id] === d && visibleKids(Number(id)).length) st.folded[id] = true;
          });
          drawTree();
          if (readable()) break;
        }
      }
      fit();
    }
    function firstView() { fitFolded(); }
    window.addEventListener('beforeprint', fit);
    function zoom(f, cx, cy) {
      if (cx === undefined) { cx = vb.x + vb.w / 2; cy = vb.y + vb.h / 2; }
      vb.x = cx - (cx - vb.x) * f; vb.y = cy - (cy - vb.y) * f; vb.w *= f; vb.h *= f;
      setViewBox();
    }
    svgEl.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = svgEl.getBoundingClientRect();
      zoom(e.deltaY > 0 ? 1.2 : 1 / 1.2, vb.x + (e.clientX - r.left) / r.width * vb.w,
        vb.y + (e.clientY - r.top) / r.height * vb.h);
    }, {passive: false});
    var drag = null;
    svgEl.addEventListener('pointerdown', function (e) {
      if (e.target.closest('.node')) return;
      drag = {x: e.clientX, y: e.clientY, vx: vb.x, vy: vb.y};
      svgEl.setPointerCapture(e.pointerId);
    });
    svgEl.addEventListener('pointermove', function (e) {
      if (!drag) return;
      var r = svgEl.getBoundingClientRect();
      vb.x = drag.vx - (e.clientX - drag.x) / r.width * vb.w;
      vb.y = drag.vy - (e.clientY - drag.y) / r.height * vb.h;
      setViewBox();
    });
    svgEl.addEventListener('pointerup', function () { drag = null; });
    svgEl.addEventListener('click', function (e) {
      var g = e.target.closest('.node');
      if (g) selectNode(Number(g.dataset.id));
    });
    svgEl.addEventListener('dblclick', function (e) {
      var g = e.target.closest('.node');
      if (g) toggleFold(Number(g.dataset.id));
    });
    svgEl.addEventListener('keydown', function (e) {
      var g = e.target.closest('.node');
      if (!g) return;
      var id = Number(g.dataset.id), to = null;
      var vk = visibleKids(id), p = visibleParent(id);
      var sibs = p === null ? [id] : visibleKids(p), k = sibs.indexOf(id);
      if (e.key === 'ArrowUp') to = p;
      else if (e.key === 'ArrowDown') to = vk.length && !st.folded[id] ? vk[0] : null;
      else if (e.key === 'ArrowLeft') to = k > 0 ? sibs[k - 1] : null;
      else if (e.key === 'ArrowRight') to = k + 1 < sibs.length ? sibs[k + 1] : null;
      else if (e.key === 'Enter') { selectNode(id); e.preventDefault(); return; }
      else if (e.key === ' ' || e.key === '+' || e.key === '-') { toggleFold(id); e.preventDefault(); return; }
      else return;
      e.preventDefault();
      if (to !== null) focusNode(to);
    });
    function focusNode(id) {
      Object.keys(nodeEls).forEach(function (k) { nodeEls[k].setAttribute('tabindex', -1); });
      var g = nodeEls[id];
      if (!g) return;
      g.setAttribute('tabindex', 0);
      g.focus();
      var x = Number(g.dataset.x), y = Number(g.dataset.y);
      if (x < vb.x || x > vb.x + vb.w || y < vb.y || y > vb.y + vb.h) {
        vb.x = x - vb.w / 2; vb.y = y - vb.h / 2; setViewBox();
      }
    }
    function shown(id) {
      var n = doc.nodes[id];
      return st.view === 'complete' || kids[id].length > 0 || n.error || n.missing;
    }
    function visibleKids(id) {
      if (st.folded[id]) return [];
      var out = [];
      kids[id].forEach(function (c) { if (shown(c)) out.push(c); });
      return out;
    }
    function visibleParent(id) {
      var p = doc.nodes[id].parent;
      while (p !== null && p !== undefined && !shown(p)) p = doc.nodes[p].parent;
      return p === undefined ? null : p;
    }
    function countBelow(id) {
      var c = 0, stack = kids[id].slice();
      while (stack.length) { var x = stack.pop(); if (shown(x)) c++; stack.push.apply(stack, kids[x]); }
      return c;
    }
    function label(id) {
      var n = doc.nodes[id], t = n.type;
      if (!kids[id].length) {
        var txt = slice(n.start, n.end);
        if (txt !== t) t += ' ' + JSON.stringify(txt.length > 18 ? txt.slice(0, 17) + '…' : txt);
      }
      return t.length > 30 ? t.slice(0, 29) + '…' : t;
    }
    var ROW = 58, NH = 34;
    function drawTree() {
      treeG.textContent = '';
      nodeEls = {};
      if (!N) return;
      var pos = {}, cursor = 0, order = [];
      // leaves left to right, each parent over the middle of its shown children (iterative: deep trees)
      var stack = [[0, false]];
      while (stack.length) {
        var top = stack.pop(), id = top[0];
        var vk = visibleKids(id), w = Math.max(46, label(id).length * 6.6 + 14);
        if (!top[1]) {
          stack.push([id, true]);
          for (var i = vk.length - 1; i >= 0; i--) stack.push([vk[i], false]);
          continue;
        }
        if (!vk.length) { pos[id] = {x: cursor + w / 2, w: w}; cursor += w + 10; }
        else pos[id] = {x: (pos[vk[0]].x + pos[vk[vk.length - 1]].x) / 2, w: w};
        order.push(id);
      }
      var levelOf = {};
      (function levels() {
        var q = [[0, 0]];
        while (q.length) {
          var it = q.pop();
          levelOf[it[0]] = it[1];
          visibleKids(it[0]).forEach(function (c) { q.push([c, it[1] + 1]); });
        }
      })();
      var maxLevel = 0;
      order.forEach(function (id) {
        var p = visibleParent(id);
        var y = levelOf[id] * ROW;
        maxLevel = Math.max(maxLevel, levelOf[id]);
        if (p !== null && pos[p]) {
          treeG.appendChild(s('path', {class: 'edge', d: 'M' + pos[p].x + ',' + (levelOf[p] * ROW + NH) + ' C' + pos[p].x + ',' +
            (y - ROW / 3) + ' ' + pos[id].x + ',' + (levelOf[p] * ROW + NH + ROW / 3) + ' ' + pos[id].x + ',' + y}));
        }
      });
      order.forEach(function (id) {
        var n = doc.nodes[id], p = pos[id], y = levelOf[id] * ROW;
        var g = s('g', {class: 'node' + (n.error ? ' err' : '') + (st.folded[id] ? ' folded' : ''), 'data-id': id,
          'data-x': p.x, 'data-y': y + NH / 2, tabindex: id === 0 ? 0 : -1, role: 'treeitem',
          'aria-expanded': kids[id].length ? String(!st.folded[id]) : null});
        g.appendChild(s('rect', {x: p.x - p.w / 2, y: y, width: p.w, height: NH, rx: 5}));
        g.appendChild(s('text', {class: 'l1', x: p.x, y: y + 14, 'text-anchor': 'middle', text: label(id)}));
        g.appendChild(s('text', {class: 'l2', x: p.x, y: y + 28, 'text-anchor': 'middle'}));
        if (st.folded[id]) g.appendChild(s('text', {class: 'more', x: p.x, y: y + NH + 13, 'text-anchor': 'middle',
          text: '+' + countBelow(id) + ' folded'}));
        nodeEls[id] = g;
        treeG.appendChild(g);
      });
      bounds = {w: cursor, h: (maxLevel + 1) * ROW};
      paint();
    }
    var zoomBar = h('div', {class: 'zoombar'}, [
      h('button', {type: 'button', onclick: function () { zoom(1 / 1.25); }, 'aria-label': 'zoom in', text: '+'}),
      h('button', {type: 'button', onclick: function () { zoom(1.25); }, 'aria-label': 'zoom out', text: '−'}),
      h('button', {type: 'button', onclick: fitFolded, text: 'Fit'}),
      h('button', {type: 'button', id: 'unfold-all', onclick: function () { st.folded = {}; drawTree(); }, text: 'Unfold all'}),
    ]);

    // -- the details panel
    var panel = h('aside', {class: 'panel', id: 'panel', 'aria-live': 'polite'}, [h('p', {class: 'hint',
      text: 'Click or focus a token (Tab, arrows, Enter) or an AST node (arrows move through the tree, Enter selects, ' +
        'Space folds) to see its values here.'})]);
    function row(k, v, attrs) { return h('tr', null, [h('th', {text: k}), h('td', attrs || null, v)]); }
    function selectToken(i) {
      st.token = i; st.node = null;
      var p = tokenNtp(i);
      var rows = tokenLines(i).map(function (r) {
        return r[0].indexOf('NtP') === 0 ? row(r[0], r[1], {id: 'panel-ntp', 'data-value': p === null ? 'null' : String(p)})
          : row(r[0], r[1]);
      });
      panel.textContent = '';
      panel.appendChild(h('h2', {text: 'Token ' + i}));
      panel.appendChild(h('table', null, rows));
      var links = h('p', {class: 'links'}, nodesOfToken[i].map(function (nid) {
        return h('button', {type: 'button', class: 'link', onclick: function () { selectNode(nid); }, text: doc.nodes[nid].type});
      }));
      panel.appendChild(links);
      highlight();
      if (attn) {
        drawArcs();
        arcsBox.scrollLeft = Math.max(0, ax(i) - arcsBox.clientWidth / 2);
      }
    }
    function selectNode(id) {
      st.node = id; st.token = null;
      var n = doc.nodes[id], v = values[id];
      panel.textContent = '';
      panel.appendChild(h('h2', {text: 'Node ' + id + ': ' + n.type}));
      var rows = [
        row('AsC-Eval' + (st.layer !== null && st.layer !== layers ? ' (layer ' + st.layer + ')' : ''), fmt(v, 4),
          {id: 'panel-value', 'data-value': v === null ? 'null' : String(v)}),
        row('θ', st.theta + ' over ' + st.scope),
        row('category', n.category || 'none'),
        row('bytes', n.start + '–' + n.end + ', depth ' + n.depth),
      ];
      if (n.asc_commit !== undefined) rows.push(row('commit layer', n.asc_commit === null ? 'n/a' : String(n.asc_commit)));
      if (attribution && attrOf[id] !== undefined) rows.push(row('attribution', fmt(attrOf[id], 4),
        {id: 'panel-attr', 'data-value': attrOf[id] === null ? 'null' : String(attrOf[id])}));
      if (n.error) rows.push(row('syntax', n.missing ? 'MISSING' : 'ERROR'));
      panel.appendChild(h('table', null, rows));
      panel.appendChild(h('p', null, [h('b', {text: 'tokens: '})].concat(n.tokens.length ? n.tokens.map(function (ti) {
        var t = doc.tokens[ti];
        return h('button', {type: 'button', class: 'link', onclick: function () { selectToken(ti); },
          text: JSON.stringify(slice(t.start, t.end)) + ' ' + fmt(tokenNtp(ti), 3)});
      }) : ['none (n/a)'])));
      if (kids[id].length) panel.appendChild(h('button', {type: 'button', id: 'fold', onclick: function () { toggleFold(id); },
        text: st.folded[id] ? 'Unfold' : 'Fold'}));
      highlight();
      if (attn) drawArcs();
    }
    function toggleFold(id) {
      if (!kids[id].length) return;
      if (st.folded[id]) delete st.folded[id]; else st.folded[id] = true;
      drawTree();
      if (st.node === id) selectNode(id);
      focusNode(id);
    }
    function highlight() {
      tokenEls.forEach(function (x) { x.classList.remove('hl'); });
      Object.keys(nodeEls).forEach(function (k) { nodeEls[k].classList.remove('hl'); });
      if (st.node !== null) doc.nodes[st.node].tokens.forEach(function (ti) { tokenEls[ti].classList.add('hl'); });
      if (st.token !== null) {
        tokenEls[st.token].classList.add('hl');
        nodesOfToken[st.token].forEach(function (n) { if (nodeEls[n]) nodeEls[n].classList.add('hl'); });
      }
      if (st.node !== null && nodeEls[st.node]) nodeEls[st.node].classList.add('hl');
    }

    // -- colours and numbers for the current θ, scope and layer
    function paint() {
      doc.tokens.forEach(function (t, i) {
        var c = ascColor(tokenNtp(i));
        var el = tokenEls[i];
        if (el.classList.contains('ws')) c = faint(c);
        el.style.background = rgb(c);
        el.style.color = textOn(c);
      });
      Object.keys(nodeEls).forEach(function (k) {
        var id = Number(k), v = values[id], g = nodeEls[id];
        var useAttr = st.colour === 'attr';
        var c = useAttr ? signedColor(attrOf[id], attrMax) : ascColor(v);
        g.querySelector('rect').setAttribute('fill', rgb(c));
        g.querySelectorAll('text.l1, text.l2').forEach(function (t) { t.setAttribute('fill', textOn(c)); });
        g.querySelector('text.l2').textContent = useAttr ? 'attr ' + fmt(attrOf[id], 3) : fmt(v, 2);
        g.setAttribute('data-value', v === null ? 'null' : String(v));
        g.setAttribute('aria-label', doc.nodes[id].type + ', AsC-Eval ' + fmt(v, 2));
      });
      highlight();
    }
    function recompute() {
      values = nodeValues(doc, kids, st.theta, st.scope, st.layer === layers ? null : st.layer);
      summaryEl.textContent = fmt(snippetAscEval(values), 3);
      summaryEl.setAttribute('data-value', String(snippetAscEval(values)));
      header.querySelector('#theta-shown').textContent = st.theta + ' over ' + st.scope;
      if (layerLabel) layerLabel.textContent = st.layer === 0 ? '0 (embeddings)' : st.layer + ' of ' + layers;
      paint();
      if (st.node !== null) selectNode(st.node);
      else if (st.token !== null) selectToken(st.token);
    }

    // -- attribution list
    var attrList = null;
    if (attribution) {
      var sorted = attribution.nodes.slice().filter(function (a) { return a.attribution !== null; })
        .sort(function (a, b) { return Math.abs(b.attribution) - Math.abs(a.attribution); }).slice(0, 40);
      var tgt = attribution.target || {};
      attrList = h('section', {class: 'attr', id: 'attribution'}, [
        h('h2', {text: 'Attribution to ' + (tgt.type || 'the target') + ' (' + (attribution.method || '') + ')'}),
        h('ol', null, sorted.map(function (a) {
          var c = signedColor(a.attribution, attrMax);
          return h('li', null, [h('span', {class: 'swatch', style: 'background:' + rgb(c)}),
            h('button', {type: 'button', class: 'link', onclick: function () { selectNode(a.id); }, text: a.type}),
            ' ' + fmt(a.attribution, 4)]);
        })),
      ]);
    }

    // -- attention heads (--heads): the arcs of a chosen head, from each query token to its heaviest keys
    function headKeys(q) { // [[key, weight], …] of the chosen head's query q, heaviest first
      var flat = attn.rows[st.headLayer][st.head][q] || [], out = [];
      for (var k = 0; k + 1 < flat.length; k += 2) out.push([flat[k], flat[k + 1]]);
      return out;
    }
    var headsPane = null, arcsSvg = null, arcsBox = null;
    // BOS appears (a column, its arcs and their switch) only when some head keeps a key on it (-1)
    var attnBos = !!attn && attn.rows.some(function (l) {
      return l.some(function (hd) { return hd.some(function (r) { return r.some(function (x, j) { return j % 2 === 0 && x < 0; }); }); });
    });
    var STEP = 16, BASE = 170, LEFT = 24;
    function ax(k) { return LEFT + (k + (attnBos ? 1 : 0)) * STEP + STEP / 2; } // key -1 (BOS): the first column
    function drawArcs() {
      if (!attn) return;
      arcsSvg.textContent = '';
      var T = doc.tokens.length;
      var width = ax(T) + LEFT;
      arcsSvg.setAttribute('viewBox', '0 0 ' + width + ' ' + (BASE + 70));
      arcsSvg.setAttribute('width', width);
      arcsSvg.setAttribute('height', BASE + 70);
      arcsSvg.setAttribute('aria-label', 'attention arcs of head ' + st.headLayer + '.' + st.head);
      var labels = s('g', {class: 'labels'});
      for (var k = attnBos ? -1 : 0; k < T; k++) {
        var txt = k < 0 ? 'BOS' : slice(doc.tokens[k].start, doc.tokens[k].end).replace(/\n/g, '⏎').replace(/\t/g, '→');
        if (txt.length > 10) txt = txt.slice(0, 9) + '…';
        var lab = s('text', {x: ax(k), y: BASE + 6, transform: 'rotate(60 ' + ax(k) + ' ' + (BASE + 6) + ')',
          class: 'tlab' + (k === st.token ? ' sel' : ''), 'data-i': k});
        lab.textContent = txt;
        labels.appendChild(lab);
      }
      var arcs = s('g', {class: 'arcs'});
      for (var q = 0; q < T; q++) {
        headKeys(q).forEach(function (kw) {
          var key = kw[0], w = kw[1];
          if (key < 0 && !st.bos) return;
          var sel = st.token === null ? '' : (st.token === q || st.token === key ? ' sel' : ' dim');
          var attrs = {class: 'arc' + (key === q ? ' self' : '') + sel, 'data-q': q, 'data-k': key, 'data-w': w,
            'stroke-width': (0.6 + 3 * w).toFixed(2), 'stroke-opacity': (0.15 + 0.85 * w).toFixed(3)};
          var e;
          if (key === q) {
            e = s('circle', Object.assign(attrs, {cx: ax(q), cy: BASE - 6, r: 3 + 3 * w}));
          } else {
            var x0 = ax(key), x1 = ax(q), rx = (x1 - x0) / 2, ry = Math.min(rx, BASE - 12);
            e = s('path', Object.assign(attrs, {d: 'M' + x0 + ',' + BASE + ' A' + rx + ',' + ry + ' 0 0 1 ' + x1 + ',' + BASE}));
          }
          var t = s('title');
          t.textContent = 'token ' + q + ' → ' + (key < 0 ? 'BOS' : 'token ' + key) + ': ' + fmt(w, 3);
          e.appendChild(t);
          arcs.appendChild(e);
        });
      }
      arcsSvg.appendChild(s('line', {x1: LEFT, x2: width - LEFT, y1: BASE, y2: BASE, class: 'axis'}));
      arcsSvg.appendChild(arcs);
      arcsSvg.appendChild(labels);
    }
    if (attn) {
      var range = function (n) { var a = []; for (var i = 0; i < n; i++) a.push(i); return a; };
      var hl = h('select', {id: 'head-layer', 'aria-label': 'layer of the attention head', onchange: function () {
        st.headLayer = Number(hl.value); drawArcs(); if (st.token !== null) selectToken(st.token);
      }}, range(attn.layers).map(function (l) { return h('option', {value: l, text: String(l)}); }));
      var hh = h('select', {id: 'head-head', 'aria-label': 'attention head', onchange: function () {
        st.head = Number(hh.value); drawArcs(); if (st.token !== null) selectToken(st.token);
      }}, range(attn.heads).map(function (k) { return h('option', {value: k, text: String(k)}); }));
      var bos = h('input', {type: 'checkbox', id: 'arcs-bos', onchange: function () { st.bos = bos.checked; drawArcs(); }});
      arcsSvg = s('svg', {class: 'arcs', id: 'arcs', role: 'img'});
      arcsBox = h('div', {class: 'arcbox'}, [arcsSvg]);
      arcsBox.addEventListener('click', function (e) {
        var t = e.target.closest('text.tlab');
        if (t && Number(t.dataset.i) >= 0) selectToken(Number(t.dataset.i));
      });
      headsPane = h('section', {class: 'headspane', id: 'heads'}, [
        h('h2', {text: 'Attention heads'}),
        h('div', {class: 'controls'}, [h('label', null, ['layer ', hl]), h('label', null, [' head ', hh]),
          attnBos ? h('label', null, [' ', bos, ' arcs to BOS']) : null]),
        h('p', {class: 'hint', text: 'Each token (query) to the keys it attends to most: its ' + attn.keep +
          ' heaviest with weight ≥ ' + attn.min_weight + ' (rounded to ' + attn.digits + ' decimals); line width and ' +
          'opacity grow with the weight, a circle is a token attending to itself. Click a token to see only its arcs.'}),
        arcsBox,
      ]);
    }

    var main = h('div', {class: 'snippet'}, [
      header,
      h('div', {class: 'panes'}, [
        h('section', {class: 'codepane'}, [h('h2', {text: 'Sequence'}), pre]),
        panel,
      ]),
      h('section', {class: 'astpane'}, [h('h2', {text: 'AST'}), zoomBar, svgEl]),
      headsPane,
      attrList,
      tip,
    ]);
    root.appendChild(main);
    values = nodeValues(doc, kids, st.theta, st.scope, null);
    drawArcs();
    drawTree();
    firstView();
    recompute();
    self.values = function () { return values.slice(); };
  }

  // ============================================================ a run
  function RunView(root, doc) {
    var report = doc.report || {};
    var run = doc.run || {};
    var snippets = doc.snippets || [];
    var listSec = h('section', {id: 'run'});
    var detail = h('section', {id: 'detail', hidden: true});
    root.appendChild(listSec);
    root.appendChild(detail);

    var settings = [['model', run.model], ['fingerprint', run.model_fingerprint || 'not recorded'], ['dtype', run.dtype],
      ['θ', run.aggregation], ['language', run.language], ['corpus', run.corpus], ['snippets', String(report.snippets)],
      ['status', run.status], ['AsC-Viz', run.ascviz_version], ['written by', run.version]];
    listSec.appendChild(h('header', {class: 'head'}, [
      h('h1', {text: 'AsC-Viz run: ' + run.model + ' — Global AsC-Eval ' + fmt(report.global_asc_eval, 3)}),
      h('dl', {class: 'settings'}, settings.reduce(function (acc, kv) {
        return acc.concat([h('dt', {text: kv[0]}), h('dd', {text: kv[1] === undefined || kv[1] === null ? 'n/a' : String(kv[1])})]);
      }, [])),
      h('div', {class: 'legends'}, legend(false)),
    ]));
    if (doc.note) listSec.appendChild(h('p', {class: 'note', id: 'run-note', text: doc.note}));

    // categories table (Table I)
    var cats = report.categories || {};
    var names = Object.keys(cats);
    var minN = report.min_n;
    listSec.appendChild(h('h2', {text: 'Categories (Table I: bootstrapped medians, 95 % CI)'}));
    listSec.appendChild(h('table', {class: 'cats', id: 'categories'}, [
      h('thead', null, h('tr', null, ['category', 'median', '95 % CI', 'se', 'n', 'flag'].map(function (t) { return h('th', {text: t}); }))),
      h('tbody', null, names.map(function (k) {
        var c = cats[k], few = c.flag === 'too_few', col = ascColor(c.median);
        return h('tr', {class: few ? 'few' : null}, [
          h('th', {text: k}),
          h('td', {class: 'num', style: 'background:' + rgb(col) + ';color:' + textOn(col), text: fmt(c.median, 3)}),
          h('td', {class: 'num', text: '[' + fmt(c.ci95 && c.ci95[0], 3) + ', ' + fmt(c.ci95 && c.ci95[1], 3) + ']'}),
          h('td', {class: 'num', text: fmt(c.se, 3)}),
          h('td', {class: 'num', text: String(c.n)}),
          h('td', {text: few ? 'too few (n < ' + minN + ')' : c.flag}),
        ]);
      })),
    ]));
    // category chart: median with its interval; too few drawn hollow
    var W = 640, rowH = 20, left = 170, cw = W - left - 20;
    var chart = s('svg', {class: 'chart', id: 'category-chart', viewBox: '0 0 ' + W + ' ' + (names.length * rowH + 40),
      role: 'img', 'aria-label': 'category medians with 95 % intervals'});
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      var x = left + t * cw;
      chart.appendChild(s('line', {x1: x, x2: x, y1: 0, y2: names.length * rowH, class: 'grid'}));
      chart.appendChild(s('text', {x: x, y: names.length * rowH + 14, 'text-anchor': 'middle', 'font-size': 10, text: String(t)}));
    });
    names.forEach(function (k, i) {
      var c = cats[k], y = i * rowH, few = c.flag === 'too_few';
      chart.appendChild(s('text', {x: left - 6, y: y + 14, 'text-anchor': 'end', 'font-size': 11, text: k}));
      if (c.median === null || c.median === undefined) return;
      var col = rgb(ascColor(c.median));
      chart.appendChild(s('rect', {x: left, y: y + 4, width: Math.max(0, c.median) * cw, height: rowH - 8,
        fill: few ? 'none' : col, stroke: '#444', 'stroke-dasharray': few ? '3 2' : null}));
      if (c.ci95) chart.appendChild(s('line', {x1: left + c.ci95[0] * cw, x2: left + c.ci95[1] * cw, y1: y + rowH / 2,
        y2: y + rowH / 2, stroke: '#111', 'stroke-width': 1.5}));
    });
    listSec.appendChild(h('h2', {text: 'Category medians with their 95 % intervals (hollow: too few)'}));
    listSec.appendChild(chart);

    // distribution of the snippets' AsC-Eval (histogram, 20 bins)
    var vals = snippets.map(function (x) { return x.asc_eval; }).filter(function (v) { return v !== null && v !== undefined; });
    var bins = []; for (var b = 0; b < 20; b++) bins.push(0);
    vals.forEach(function (v) { bins[Math.min(19, Math.max(0, Math.floor(v * 20)))]++; });
    var maxBin = Math.max.apply(null, bins.concat([1]));
    var dist = s('svg', {class: 'chart', id: 'distribution-chart', viewBox: '0 0 ' + W + ' 160', role: 'img',
      'aria-label': 'distribution of the snippets\' AsC-Eval'});
    bins.forEach(function (n, i) {
      var bw = (W - 60) / 20, hgt = n / maxBin * 120;
      dist.appendChild(s('rect', {x: 40 + i * bw, y: 130 - hgt, width: bw - 2, height: hgt, fill: rgb(ascColor((i + 0.5) / 20)),
        stroke: '#444'}, s('title', {text: n + ' snippets in [' + (i / 20) + ', ' + ((i + 1) / 20) + ')'})));
    });
    [0, 0.5, 1].forEach(function (t) {
      dist.appendChild(s('text', {x: 40 + t * (W - 60), y: 148, 'text-anchor': 'middle', 'font-size': 10, text: String(t)}));
    });
    dist.appendChild(s('text', {x: 4, y: 14, 'font-size': 10, text: 'max ' + maxBin}));
    listSec.appendChild(h('h2', {text: 'Distribution of the snippets\' AsC-Eval (n = ' + vals.length + ')'}));
    listSec.appendChild(dist);

    // the snippet list, sortable
    var cols = [['index', '#'], ['id', 'id'], ['language', 'language'], ['asc_eval', 'AsC-Eval'], ['tokens', 'tokens'],
      ['ast_nodes', 'AST nodes'], ['status', 'status']];
    var sortKey = 'asc_eval', sortDir = -1;
    var tbody = h('tbody');
    var heads = cols.map(function (c) {
      return h('th', {'aria-sort': 'none'}, h('button', {type: 'button', class: 'sort', 'data-key': c[0], onclick: function () {
        if (sortKey === c[0]) sortDir = -sortDir; else { sortKey = c[0]; sortDir = c[0] === 'asc_eval' ? -1 : 1; }
        fill();
      }, text: c[1]}));
    });
    function fill() {
      var rows = snippets.slice().sort(function (a, b) {
        var x = a[sortKey], y = b[sortKey];
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * sortDir;
      });
      heads.forEach(function (th, i) {
        th.setAttribute('aria-sort', cols[i][0] === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
      });
      tbody.textContent = '';
      rows.forEach(function (x) {
        var col = ascColor(x.asc_eval);
        tbody.appendChild(h('tr', {'data-index': x.index}, [
          h('td', {class: 'num', text: String(x.index)}),
          h('td', null, x.eval ? h('a', {href: '#snippet-' + x.index, text: x.id}) : x.id),
          h('td', {text: x.language || ''}),
          h('td', {class: 'num', style: 'background:' + rgb(col) + ';color:' + textOn(col), text: fmt(x.asc_eval, 3)}),
          h('td', {class: 'num', text: String(x.tokens)}),
          h('td', {class: 'num', text: String(x.ast_nodes)}),
          h('td', {text: x.status + (x.message ? ': ' + x.message : '')}),
        ]));
      });
    }
    listSec.appendChild(h('h2', {text: 'Snippets (' + snippets.length + '; click a column to sort, an id to open it)'}));
    listSec.appendChild(h('table', {class: 'snippets', id: 'snippets'}, [h('thead', null, h('tr', null, heads)), tbody]));
    fill();

    function route() {
      var m = /^#snippet-(\d+)$/.exec(location.hash);
      var x = m && snippets.filter(function (y) { return String(y.index) === m[1]; })[0];
      if (!x || !x.eval) { detail.hidden = true; listSec.hidden = false; return; }
      detail.textContent = '';
      detail.appendChild(h('p', null, h('a', {href: '#', id: 'back', text: '← the run'})));
      listSec.hidden = true; detail.hidden = false; // shown first: the tree's first view measures its box
      new SnippetView(detail, x.eval, {title: 'Snippet ' + x.id + ' (' + (x.location || '') + ')'});
      window.scrollTo(0, 0);
    }
    window.addEventListener('hashchange', route);
    route();
  }

  function start() {
    var app = document.getElementById('app');
    var doc;
    try {
      doc = JSON.parse(document.getElementById('ascviz-data').textContent);
    } catch (e) {
      app.appendChild(h('p', {class: 'note', text: 'The embedded data is not valid JSON: ' + e.message}));
      throw e;
    }
    if (document.body.dataset.kind === 'run') new RunView(app, doc);
    else window.ascvizView = new SnippetView(app, doc);
    document.body.setAttribute('data-ready', 'true');
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
