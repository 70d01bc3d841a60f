// Typeset the math that pymdownx.arithmatex (generic mode) leaves in the page:
//   inline   <span class="arithmatex">\( ... \)</span>
//   display  <div class="arithmatex">\[ ... \]</div>
// Only .arithmatex elements are rendered, and only with the \( \) and \[ \]
// delimiters arithmatex emits, so a stray "$" in prose is never taken for math.
// document$ is Material's page observable: it emits on the first load and again
// after every instant-navigation page swap, so math is re-rendered each time.
(function () {
  "use strict";

  function typeset(root) {
    if (typeof renderMathInElement !== "function") return;
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.tagName === "DIV" && !el.querySelector(".katex")) el.dataset.tex = el.textContent;
      renderMathInElement(el, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false
      });
    });
  }

  // A display equation wider than its column is set again, as inline formulas in display style,
  // which KaTeX breaks after their top-level + and = signs (derive.render.latex.names_latex keeps
  // the + of a long sum in a product at the top level); an aligned block becomes one such formula
  // a row (not one holding an environment of its own, whose rows and columns splitting would break).
  // One still too wide (a single long group) is set smaller to fit, down to 0.6 em.
  // extra.css aligns them left.
  function rows(tex) {
    var m = tex.match(/^\\begin\{aligned\}([\s\S]*)\\end\{aligned\}$/);
    if (!m) return /\\begin\{/.test(tex) ? null : [tex];
    // An environment inside the block (a matrix, a vector) has its own \\ rows and & columns:
    // split, it would no longer parse. Such a block is left whole (it scrolls in its box).
    if (/\\begin\{/.test(m[1])) return null;
    var out = [], depth = 0, start = 0, body = m[1];
    for (var i = 0; i < body.length; i++) {
      var c = body[i];
      if (c === "{") depth++;
      else if (c === "}") depth--;
      else if (c === "\\" && body[i + 1] === "\\" && depth === 0) {
        out.push(body.slice(start, i));
        start = i + 2;
        i++;
      } else if (c === "\\") i++;
    }
    out.push(body.slice(start));
    return out.map(function (row) { return row.replace(/(^|[^\\])&/g, "$1").trim(); })
      .filter(function (row) { return row.length > 0; });
  }

  function wrapWide() {
    if (typeof katex === "undefined") return;
    document.querySelectorAll(".md-typeset div.arithmatex").forEach(function (el) {
      var tex = (el.dataset.tex || "").trim().replace(/^\\\[/, "").replace(/\\\]$/, "").trim();
      if (!tex || el.dataset.wrapped || el.scrollWidth <= el.clientWidth + 1) return;
      var lines = rows(tex);
      if (!lines) return;
      var box = document.createElement("span");
      box.className = "katex-display katex-wrapped";
      lines.forEach(function (line) {
        var row = document.createElement("span");
        row.className = "katex-row";
        katex.render("\\displaystyle " + line, row, { displayMode: false, throwOnError: false });
        box.appendChild(row);
      });
      el.replaceChildren(box);
      el.dataset.wrapped = "1";
      if (el.scrollWidth > el.clientWidth + 1) {
        var scale = Math.max(0.6, (el.clientWidth - 2) / el.scrollWidth);
        box.style.fontSize = scale.toFixed(3) + "em";
      }
    });
  }

  // A display equation wider than the column scrolls sideways inside its div.arithmatex
  // (Material's overflow: auto). Make exactly those focusable, so a keyboard user can scroll
  // them, and name them; narrower ones stay out of the tab order. Re-checked when the fonts
  // have loaded (widths change) and when the window is resized.
  function markWide() {
    wrapWide();
    document.querySelectorAll(".md-typeset div.arithmatex").forEach(function (el, k) {
      if (el.scrollWidth > el.clientWidth + 1) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "group");
        el.setAttribute("aria-label", "Equation " + (k + 1) + " (scroll sideways to read it all)");
      } else if (el.hasAttribute("tabindex")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("role");
        el.removeAttribute("aria-label");
      }
    });
  }

  // Names for two kinds of element Material adds without one (axe-core: landmark-unique,
  // aria-dialog-name): the copy-button <nav> of each code block, the search dialog.
  function nameThemeParts() {
    document.querySelectorAll("nav.md-code__nav:not([aria-label])").forEach(function (nav, k) {
      nav.setAttribute("aria-label", "Code block " + (k + 1) + " actions");
    });
    var search = document.querySelector('.md-search[role="dialog"]:not([aria-label])');
    if (search) search.setAttribute("aria-label", "Search");
  }

  function onPage(root) {
    typeset(root);
    nameThemeParts();
    markWide();
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(markWide);
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(markWide, 100);
  });

  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) {
      onPage(doc && doc.body ? doc.body : document.body);
    });
  } else {
    document.addEventListener("DOMContentLoaded", function () {
      onPage(document.body);
    });
  }
})();
