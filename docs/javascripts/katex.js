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
      renderMathInElement(el, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false
      });
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(function (doc) {
      typeset(doc && doc.body ? doc.body : document.body);
    });
  } else {
    document.addEventListener("DOMContentLoaded", function () {
      typeset(document.body);
    });
  }
})();
