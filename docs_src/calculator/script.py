"""The calculator's JavaScript (used by :mod:`docs_src.calculator`): the input checks, the
evaluation of the generated tables, and the binding of the page's form.

:data:`RUNTIME` defines ``deriveCount(cfg)`` (PyTorch's classes from ``FORMULAS``, the other
frameworks' from ``POLYS``/``FW``, Keras 3's from ``POLYS``/``KERAS`` through ``deriveKeras`` of
:mod:`docs_src.calculator.keras`); :data:`DOM` binds the form (element ids in
:mod:`docs_src.calculator`) and the blocks' form (``bindBlocks`` of
:mod:`docs_src.calculator.blocks`). ES5 plus BigInt; the tables are printed before them.
"""

__all__ = ["RUNTIME", "DOM"]

#: The checks and evaluation, with the library's messages.
RUNTIME = r"""
  var MESSAGES = {
    type: function (name) { return name + " should be of type int"; },
    positive: function (name) { return name + " must be greater than zero"; },
    proj_negative: "proj_size should be a positive integer or zero to disable projections",
    proj_large: "proj_size has to be smaller than hidden_size",
    proj_cell: "proj_size argument is only supported for LSTM, not RNN or GRU"
  };
  // A size is decimal digits as Python writes an int: an optional "-", no leading zero, no
  // "0x", "1e3", "+", "_" or spaces inside (the fields are text fields, so the script sees what
  // was typed; a number field would turn "0x10" into "010" and read 10).
  function size(name, text, minimum) {
    var s = String(text).trim();
    if (!/^-?(0|[1-9][0-9]*)$/.test(s)) { throw new Error(MESSAGES.type(name)); }
    var v = BigInt(s);
    if (v < BigInt(minimum)) {
      throw new Error(minimum === 0 ? MESSAGES.proj_negative : MESSAGES.positive(name));
    }
    return v;
  }
  function group(v) {
    var s = v.toString(), neg = s.charAt(0) === "-";
    if (neg) { s = s.slice(1); }
    var out = "";
    while (s.length > 3) { out = "," + s.slice(-3) + out; s = s.slice(0, -3); }
    return (neg ? "-" : "") + s + out;
  }
  // cfg: {cell, inputSize, hiddenSize, numLayers, bidirectional, bias, projSize}; sizes as strings or numbers.
  function deriveCount(cfg) {
    if (String(cfg.framework) === "keras") { return deriveKeras(cfg); }
    if (cfg.framework !== undefined && String(cfg.framework) !== "torch") { return deriveOther(cfg); }
    var cell = String(cfg.cell);
    if (!Object.prototype.hasOwnProperty.call(CELLS, cell)) { throw new Error("unknown cell " + cell); }
    var I = size("input_size", cfg.inputSize, 1);
    var H = size("hidden_size", cfg.hiddenSize, 1);
    var L = size("num_layers", cfg.numLayers, 1);
    var P = size("proj_size", cfg.projSize === undefined ? "0" : cfg.projSize, 0);
    if (P !== 0n && CELLS[cell].cls !== "LSTM") { throw new Error(MESSAGES.proj_cell); }
    if (P !== 0n && P >= H) { throw new Error(MESSAGES.proj_large); }
    var key = cell + "|" + (cfg.bidirectional ? 1 : 0) + "|" + (cfg.bias ? 1 : 0) + "|" + (P !== 0n ? 1 : 0);
    var f = FORMULAS[key];
    var layer0 = f[0](I, H, P), upper = f[1](I, H, P);
    var total = layer0 + (L - 1n) * upper;
    var args = [I.toString(), H.toString()];
    var kw = [];
    if (L !== 1n) { args.push(L.toString()); }
    var extra = CELLS[cell].extra;
    for (var k in extra) { kw.push(k + "=" + JSON.stringify(extra[k]).replace(/"/g, "'")); }
    if (!cfg.bias) { kw.push("bias=False"); }
    if (cfg.bidirectional) { kw.push("bidirectional=True"); }
    if (P !== 0n) { kw.push("proj_size=" + P.toString()); }
    var call = "nn" + "." + CELLS[cell].cls + "(" + args.concat(kw).join(", ") + ")";
    return { total: total, layer0: layer0, upper: upper, layers: L, call: call };
  }
  // A polynomial of POLYS (coefficient, powers of I, H, P; repeated) at I, H, P.
  function poly(k, I, H, P) {
    var t = POLYS[k], s = 0n;
    for (var j = 0; j < t.length; j += 4) {
      s += BigInt(t[j]) * I ** BigInt(t[j + 1]) * H ** BigInt(t[j + 2]) * P ** BigInt(t[j + 3]);
    }
    return s;
  }
  function py(v) { return v ? "True" : "False"; }
  // cfg.framework a key of FW.cells, cfg.cell one of its classes; checks as derive.frameworks.stack does.
  function deriveOther(cfg) {
    var fw = String(cfg.framework), cell = String(cfg.cell);
    if (!Object.prototype.hasOwnProperty.call(FW.cells, fw)) { throw new Error("unknown framework " + fw); }
    if (!Object.prototype.hasOwnProperty.call(FW.cells[fw], cell)) { throw new Error("unknown cell " + cell); }
    var spec = FW.cells[fw][cell], name = fw + " " + cell;
    var I = size("input_size", cfg.inputSize, 1);
    var H = size("hidden_size", cfg.hiddenSize, 1);
    var L = size("num_layers", cfg.numLayers, 1);
    var P = size("proj_size", cfg.projSize === undefined ? "0" : cfg.projSize, 0);
    var bias = cfg.bias === undefined ? spec.bias[0] : !!cfg.bias, bidi = !!cfg.bidirectional;
    if (spec.bias.indexOf(bias) < 0) {
      throw new Error("bias must be one of [" + spec.bias.map(py).join(", ") + "] for " + name + ", got " + py(bias));
    }
    if (P !== 0n && !spec.proj) {
      throw new Error("proj_size must be 0 for " + name + ": it has no projection (projections: " + FW.projections + ")");
    }
    if (P !== 0n && spec.proj === "below" && P >= H) { throw new Error(MESSAGES.proj_large); }
    if (spec.refuse) { throw new Error(spec.refuse); }
    if (P !== 0n && spec.proj === "input" && P !== I) {
      throw new Error("proj_size must be 0 or input_size (" + I + ") for mingru-pytorch: to_out maps the " +
                      "hidden state back to dim, got " + P);
    }
    if (P !== 0n && spec.proj === "input" && bidi && L !== 1n) {
      throw new Error("proj_size must be 0 for a bidirectional mingru-pytorch stack of more than one layer: " +
                      "layers >= 1 read 2*proj_size features and their to_out maps back to that width, got " + P);
    }
    var square = spec.sq && I === (bidi ? 2n : 1n) * H;
    var f = spec.f[(bidi ? 1 : 0) + "|" + (bias ? 1 : 0) + "|" + (P !== 0n ? 1 : 0) + "|" + (square ? 1 : 0)];
    var layer0 = poly(f[0], I, H, P), upper = poly(f[1], I, H, P);
    var kw = [];
    if (L !== 1n) { kw.push("num_layers=" + L); }
    if (bidi) { kw.push("bidirectional=True"); }
    if (bias !== spec.bias[0]) { kw.push("bias=" + py(bias)); }
    if (P !== 0n) { kw.push("proj_size=" + P); }
    var call = "frameworks.count(" + ['"' + fw + '"', '"' + cell + '"', I.toString(), H.toString()].concat(kw).join(", ") + ")";
    return { total: layer0 + (L - 1n) * upper, layer0: layer0, upper: upper, layers: L, call: call };
  }
"""

#: The form: the Cell list per framework (the reader's cell kept across a switch where the framework
#: has it, a notice where not), the options a class lacks disabled, the results shown.
DOM = r"""
  function bind() {
    var form = document.getElementById("calc-form");
    if (!form || form.getAttribute("data-bound") === "1") { return; }
    form.setAttribute("data-bound", "1");
    var byId = function (id) { return document.getElementById(id); };
    var cells = byId("calc-cell"), torchCells = cells.innerHTML, shownFw = "torch";
    var notice = byId("calc-notice"), frameworks = byId("calc-framework");
    // The Cell select: the framework's own classes. The reader's cell is kept where the framework has
    // a class of that cell (MODES: the cell each class computes); where it has none, the notice says so.
    function fill() {
      var fw = frameworks.value;
      if (fw === shownFw) { return; }
      var was = cells.value, mode = MODES[shownFw][was];
      shownFw = fw;
      if (fw === "torch") {
        cells.innerHTML = torchCells;
      } else {
        cells.innerHTML = "";
        Object.keys(MODES[fw]).forEach(function (name) { cells.add(new Option(name, name)); });
      }
      var names = Object.keys(MODES[fw]), keep = MODES[fw][was] === mode ? was : null;
      for (var i = 0; keep === null && i < names.length; i++) { if (MODES[fw][names[i]] === mode) { keep = names[i]; } }
      if (keep !== null) {
        cells.value = keep;
        notice.textContent = "";
      } else {
        cells.selectedIndex = 0;
        notice.textContent = frameworks.selectedOptions[0].textContent + " has no " + MODE_TITLES[mode] +
          " class, so the cell is now " + cells.value + " (" + MODE_TITLES[MODES[fw][cells.value]] + ").";
      }
    }
    cells.addEventListener("change", function () { notice.textContent = ""; });
    function update() {
      fill();
      var fw = byId("calc-framework").value, cell = cells.value;
      var keras = fw === "keras", spec = fw === "torch" || keras ? null : FW.cells[fw][cell];
      var proj = byId("calc-proj-size"), biasBox = byId("calc-bias"), merge = byId("calc-merge-mode");
      proj.disabled = keras || (spec ? !spec.proj : CELLS[cell].cls !== "LSTM");
      biasBox.disabled = spec ? spec.bias.length < 2 : false;
      merge.disabled = !(keras && byId("calc-bidirectional").checked);
      var out = [byId("calc-total"), byId("calc-layer0"), byId("calc-upper")];
      var list = byId("calc-layers");
      try {
        var r = deriveCount({
          framework: fw,
          cell: cell,
          inputSize: byId("calc-input-size").value,
          hiddenSize: byId("calc-hidden-size").value,
          numLayers: byId("calc-num-layers").value,
          bidirectional: byId("calc-bidirectional").checked,
          bias: biasBox.disabled ? spec.bias[0] : biasBox.checked,
          projSize: proj.disabled ? "0" : proj.value,
          mergeMode: merge.value
        });
        byId("calc-error").textContent = "";
        out[0].textContent = group(r.total);
        out[0].setAttribute("data-value", r.total.toString());
        out[1].textContent = group(r.layer0);
        out[1].setAttribute("data-value", r.layer0.toString());
        out[2].textContent = r.layers > 1n ? group(r.upper) : "(no layer >= 1)";
        out[2].setAttribute("data-value", r.layers > 1n ? r.upper.toString() : "");
        byId("calc-call").textContent = r.call;
        var rows = [];
        var shown = r.layers < BigInt(MAX_LISTED) ? Number(r.layers) : MAX_LISTED;
        for (var k = 0; k < shown; k++) {
          rows.push("<tr><td>" + k + "</td><td>" + group(k === 0 ? r.layer0 : r.upper) + "</td></tr>");
        }
        if (r.layers > BigInt(shown)) {
          rows.push("<tr><td>" + shown + " … " + (r.layers - 1n).toString() + "</td><td>" + group(r.upper) +
                    " each</td></tr>");
        }
        list.innerHTML = rows.join("");
      } catch (e) {
        byId("calc-error").textContent = e.message;
        out.forEach(function (el) { el.textContent = "—"; el.setAttribute("data-value", ""); });
        byId("calc-call").textContent = "";
        list.innerHTML = "";
      }
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (e) { e.preventDefault(); update(); });
    update();
  }
  function bindAll() { bind(); bindBlocks(); }
  var pages = window["document\u0024"];  // Material's page observable (instant navigation), if any
  if (pages && pages.subscribe) {
    pages.subscribe(function () { bindAll(); });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bindAll);
  } else {
    bindAll();
  }
"""
