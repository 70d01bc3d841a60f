// Tables wider than their column (issue 27). docs_src/tables.py puts each table in a
// div.table-region; a table that still does not fit its region at the reader's width (a phone,
// a long list of columns) is set one block per row, each cell under its column's name
// (extra.css, .table-region.stacked), so that a row's name and count are read without
// scrolling sideways. Checked after the math is typeset (katex.js runs first), again when the
// fonts have loaded and when the window is resized.
(function () {
  "use strict";

  // Each cell gets its column's header (math included, already typeset) as a label, hidden
  // from screen readers, which read the header row itself.
  function label(table) {
    if (table.dataset.labelled) return;
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    var names = Array.prototype.map.call(head.cells, function (th) { return th.innerHTML; });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, k) {
          var span = document.createElement("span");
          span.className = "cell-label";
          span.setAttribute("aria-hidden", "true");
          span.innerHTML = names[k] || "";
          var value = document.createElement("span");
          value.className = "cell-value";
          while (cell.firstChild) value.appendChild(cell.firstChild);
          cell.appendChild(span);
          cell.appendChild(value);
        });
      });
    });
    table.dataset.labelled = "1";
  }

  function fit() {
    document.querySelectorAll(".md-typeset .table-region").forEach(function (region) {
      var table = region.querySelector("table");
      if (!table) return;
      region.classList.remove("stacked");
      if (region.scrollWidth > region.clientWidth + 1) {
        label(table);
        region.classList.add("stacked");
      }
    });
  }

  function onPage() {
    fit();
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(fit);
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(fit, 100);
  });

  if (typeof document$ !== "undefined") {
    document$.subscribe(onPage);
  } else {
    document.addEventListener("DOMContentLoaded", onPage);
  }
})();
