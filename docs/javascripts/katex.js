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
  // a row (a matrix or vector inside a row stays whole in it).
  // One still too wide (a single long group, a gate inside \left( \right), a block holding a matrix)
  // is set smaller to fit, down to 0.6 em — measured again each time (when the fonts have loaded,
  // their widths are not the fallback's; when the window is resized). extra.css aligns them left.
  function rows(tex) {
    var m = tex.match(/^\\begin\{aligned\}([\s\S]*)\\end\{aligned\}$/);
    if (!m) return /\\begin\{/.test(tex) ? null : [tex];
    // Split at the block's own \\ and drop its own & only: an environment inside it (a matrix, a
    // vector) keeps its rows and columns, whole, inside its row.
    var out = [], row = "", braces = 0, envs = 0, body = m[1];
    for (var i = 0; i < body.length; i++) {
      var c = body[i];
      if (c === "\\") {
        var word = body.slice(i).match(/^\\(begin|end)\{/);
        if (word) envs += word[1] === "begin" ? 1 : -1;
        if (body[i + 1] === "\\" && braces === 0 && envs === 0) {
          out.push(row);
          row = "";
        } else {
          row += c + body[i + 1];
        }
        i++;
        continue;
      }
      if (c === "{") braces++;
      else if (c === "}") braces--;
      if (c === "&" && braces === 0 && envs === 0) continue;
      row += c;
    }
    out.push(row);
    return out.map(function (r) { return r.trim(); }).filter(function (r) { return r.length > 0; });
  }

  function wrapWide() {
    if (typeof katex === "undefined") return;
    document.querySelectorAll(".md-typeset div.arithmatex").forEach(function (el) {
      wrap(el);
      // each row of a wrapped block on its own, so that only the rows too wide are set smaller
      var parts = el.querySelectorAll(".katex-wrapped > .katex-row");
      if (!parts.length) parts = el.querySelectorAll(".katex-display");
      parts.forEach(function (part) { shrink(part, el); });
    });
  }

  // The narrowest a part can be set (its widest unbreakable piece), at its present size.
  function needed(part) {
    var width = part.style.width;
    part.style.width = "min-content";
    var need = part.getBoundingClientRect().width;
    part.style.width = width;
    return need;
  }

  function shrink(part, el) {
    part.style.fontSize = "";
    // Material sets each child of div.arithmatex min-content wide with a padding of its own: a
    // row has the div's width less that padding
    var room = el.clientWidth - 2;
    if (part.classList.contains("katex-row")) {
      var box = getComputedStyle(part.parentElement);
      room -= parseFloat(box.paddingLeft) + parseFloat(box.paddingRight);
    }
    for (var pass = 0; pass < 3; pass++) {
      var need = needed(part);
      if (need <= room + 1) break;
      var now = parseFloat(part.style.fontSize) || 1;
      var scale = Math.max(0.6, (now * room) / need);
      if (scale >= now) break;
      part.style.fontSize = scale.toFixed(3) + "em";
    }
  }

  function wrap(el) {
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
