// assay report: filter, sort and the row detail panel. No libraries, no network; it never
// builds HTML from data, it only shows, hides and reorders elements rendered by the server.
(function () {
  "use strict";
  var table = document.getElementById("rowtable");
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var panel = document.getElementById("panel");
  var shown = document.getElementById("shown");
  var filter = document.getElementById("filter");
  var current = null;
  var haystacks = null;

  function detail(tr) { return document.getElementById("detail-" + tr.dataset.i); }

  // ---- filter: every space-separated term must occur in the row or its detail text
  function buildHaystacks() {
    haystacks = rows.map(function (tr) {
      var d = detail(tr);
      return (tr.textContent + " " + (d ? d.textContent : "")).toLowerCase();
    });
  }
  function applyFilter() {
    var terms = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (terms.length && !haystacks) buildHaystacks();
    var n = 0;
    rows.forEach(function (tr, k) {
      var ok = terms.every(function (t) { return haystacks[k].indexOf(t) >= 0; });
      tr.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = terms.length ? n + " of " + rows.length + " rows" : rows.length + " rows";
  }
  var timer = null;
  filter.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(applyFilter, 120);
  });

  // ---- sort: numbers numerically (unscored last either way), text naturally
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    if (!th.dataset.sort) return;
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(th.parentNode.cells, function (c) {
        if (c.dataset.sort) c.setAttribute("aria-sort", "none");
      });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var keyed = Array.prototype.slice.call(tbody.rows).map(function (tr, k) {
        var cell = tr.cells[col];
        var key = th.dataset.sort === "num" ? cell.dataset.v : cell.textContent;
        return {tr: tr, k: k, key: key};
      });
      keyed.sort(function (a, b) {
        var empty = (a.key === "") - (b.key === "");
        if (empty) return empty;
        var c = th.dataset.sort === "num" && a.key !== ""
          ? parseFloat(a.key) - parseFloat(b.key) : collator.compare(a.key, b.key);
        return c ? dir * c : a.k - b.k;
      });
      keyed.forEach(function (x) { tbody.appendChild(x.tr); });
    });
  });

  // ---- detail panel
  function open(tr) {
    if (current) {
      current.classList.remove("selected");
      var old = detail(current);
      if (old) old.hidden = true;
    }
    current = tr;
    tr.classList.add("selected");
    var d = detail(tr);
    if (d) d.hidden = false;
    document.getElementById("panel-title").textContent =
      "Row " + (Array.prototype.indexOf.call(tbody.rows, tr) + 1) + " of " + rows.length;
    panel.hidden = false;
    panel.scrollTop = 0;
  }
  function close() {
    panel.hidden = true;
    if (current) {
      current.classList.remove("selected");
      current.focus();
    }
  }
  function step(delta) {
    if (!current) return;
    var visible = Array.prototype.filter.call(tbody.rows, function (tr) { return !tr.hidden; });
    var k = visible.indexOf(current) + delta;
    if (k >= 0 && k < visible.length) {
      open(visible[k]);
      visible[k].scrollIntoView({block: "nearest"});
    }
  }
  tbody.addEventListener("click", function (e) {
    var tr = e.target.closest("tr");
    if (tr) open(tr);
  });
  tbody.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && e.target.tagName === "TR") open(e.target);
  });
  document.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-row]");
    if (b) open(rows[Number(b.dataset.row)]);
  });
  document.getElementById("close").addEventListener("click", close);
  document.getElementById("prev").addEventListener("click", function () { step(-1); });
  document.getElementById("next").addEventListener("click", function () { step(1); });
  document.addEventListener("keydown", function (e) {
    if (panel.hidden || e.target === filter) return;
    if (e.key === "Escape") close();
    else if (e.key === "j") step(1);
    else if (e.key === "k") step(-1);
  });
})();
