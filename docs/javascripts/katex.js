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

  // A display equation wider than its column is set again as an inline formula in display style,
  // which KaTeX breaks after its top-level + and = signs (derive.render.latex.names_latex keeps the
  // + of a long sum in a product at the top level); extra.css aligns it left. An aligned block,
  // already broken into rows by its author, is left as it is.
  function wrapWide() {
    if (typeof katex === "undefined") return;
    document.querySelectorAll(".md-typeset div.arithmatex").forEach(function (el) {
      var tex = (el.dataset.tex || "").trim().replace(/^\\\[/, "").replace(/\\\]$/, "");
      if (!tex || el.dataset.wrapped || /\\begin\{/.test(tex)) return;
      if (el.scrollWidth <= el.clientWidth + 1) return;
      var box = document.createElement("span");
      box.className = "katex-display katex-wrapped";
      katex.render("\\displaystyle " + tex, box, { displayMode: false, throwOnError: false });
      el.replaceChildren(box);
      el.dataset.wrapped = "1";
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
