// Sortable tables (issue 35): each table inside a div.sortable (the released-models page) sorts by any
// column, a click or Enter on its header (tablesort, served from assets/tablesort/, pinned in package.json;
// Material styles its headers). A count's commas are dropped for the sort, "any" (the cache stops growing)
// sorts above every context length and "—" (the weights alone do not fit) below. Runs before tables.js
// labels the cells.
(function () {
  "use strict";

  var NUMBER = /^-?[\d,]+(\.\d+)?$/;

  function sortKey(text) {
    text = text.trim();
    if (NUMBER.test(text)) return text.replace(/,/g, "");
    if (text === "any") return "1000000000000000000";
    if (text === "\u2014") return "0";
    return null;
  }

  function onPage() {
    if (typeof Tablesort === "undefined") return;
    document.querySelectorAll(".md-typeset .sortable table").forEach(function (table) {
      if (table.dataset.sortable) return;
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          Array.prototype.forEach.call(row.cells, function (cell) {
            var key = sortKey(cell.textContent);
            if (key !== null) cell.setAttribute("data-sort", key);
          });
        });
      });
      new Tablesort(table);
      table.dataset.sortable = "1";
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(onPage);
  } else {
    document.addEventListener("DOMContentLoaded", onPage);
  }
})();
