/* assay serve, review page: keyboard shortcuts for the label form (the form works without it).
   Digits rate the highlighted metric, a/b/t pick a pairwise choice, Enter saves and goes on,
   s saves, n/p move (saving first when something changed), c/r focus a text field, m focuses
   the next metric (kept in the form and the links, so it stays focused on the next rows).
   The page shows the labels of the rater it opened with; when the person puts another name in
   the rater field, only the metrics they touched are sent, so the labels shown are not copied
   to the new name. */
(function () {
  "use strict";
  var form = document.getElementById("label-form");
  if (!form) { return; }
  var sets = Array.prototype.slice.call(form.querySelectorAll("fieldset.rateable"));
  var active = null;
  var dirty = false;

  function activate(fs) {
    if (active) { active.classList.remove("active"); }
    active = fs;
    if (fs) { fs.classList.add("active"); }
  }
  sets.forEach(function (fs) {
    fs.addEventListener("focusin", function () { activate(fs); });
    fs.addEventListener("click", function () { activate(fs); });
  });
  var focused = form.querySelector("fieldset.rateable.focused");
  activate(focused || (sets.length ? sets[0] : null));
  function touch(e) {
    dirty = true;
    var fs = e.target && e.target.closest ? e.target.closest("fieldset.metric") : null;
    if (fs) { fs.setAttribute("data-touched", "1"); }
  }
  form.addEventListener("change", touch);
  form.addEventListener("input", touch);
  form.addEventListener("submit", function () {
    var rater = document.getElementById("rater");
    if (!rater || rater.value.trim() === rater.defaultValue.trim()) { return; }
    form.querySelectorAll("fieldset.metric").forEach(function (fs) {
      if (!fs.getAttribute("data-touched")) { fs.disabled = true; }  // not sent: left as is
    });
  });

  function target(pairwise) {
    var isPair = function (fs) { return fs.getAttribute("data-kind") === "pairwise"; };
    if (active && isPair(active) === pairwise) { return active; }
    for (var i = 0; i < sets.length; i++) {
      if (isPair(sets[i]) === pairwise) { return sets[i]; }
    }
    return null;
  }
  function choose(fs, key) {
    var inputs = fs.querySelectorAll('input[type="radio"]');
    for (var i = 0; i < inputs.length; i++) {
      if (inputs[i].getAttribute("data-key") === key) {
        inputs[i].checked = true;
        dirty = true;
        fs.setAttribute("data-touched", "1");
        activate(fs);
        return true;
      }
    }
    return false;
  }
  function submit(then) {
    var button = document.getElementById(then === "stay" ? "save" : "save-" + then);
    if (!button) { return false; }
    if (form.requestSubmit) { form.requestSubmit(button); } else { button.click(); }
    return true;
  }
  function withMetric(href, name) {
    var url = new URL(href, window.location.href);
    if (name) { url.searchParams.set("metric", name); } else { url.searchParams.delete("metric"); }
    return url.pathname + url.search + url.hash;
  }
  function focusNext() {
    if (!sets.length) { return; }
    var at = sets.indexOf(focused || active);
    var fs = sets[(at + 1) % sets.length];
    var name = fs.getAttribute("data-metric");
    if (focused) { focused.classList.remove("focused"); }
    focused = fs;
    fs.classList.add("focused");
    activate(fs);
    fs.scrollIntoView({block: "nearest"});
    document.getElementById("focus-metric").value = name;
    ["prev-row", "next-row", "order-run", "order-disagreement"].forEach(function (id) {
      var link = document.getElementById(id);
      if (link) { link.setAttribute("href", withMetric(link.getAttribute("href"), name)); }
    });
    var list = document.getElementById("progress");
    if (list && list.tagName === "UL") {
      list.classList.add("focus");
      Array.prototype.forEach.call(list.querySelectorAll("li"), function (li) {
        li.classList.toggle("focused", li.getAttribute("data-metric") === name);
      });
    }
    window.history.replaceState(null, "", withMetric(window.location.href, name));
  }
  function focusField(field) {
    if (field) { field.focus(); field.select(); }
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) { return; }
    var t = e.target;
    var tag = t && t.tagName ? t.tagName.toUpperCase() : "";
    var typing = tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && t.type !== "radio" && t.type !== "checkbox");
    if (typing) {
      if (e.key === "Escape") { t.blur(); }
      return;
    }
    var key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    var fs = null;
    if (/^[1-9]$/.test(key)) {
      fs = target(false);
      if (fs && choose(fs, key)) { e.preventDefault(); }
    } else if (key === "a" || key === "b" || key === "t") {
      fs = target(true);
      if (fs && choose(fs, key)) { e.preventDefault(); }
    } else if (key === "n" || key === "p") {
      var link = document.getElementById(key === "n" ? "next-row" : "prev-row");
      if (!link) { return; }
      e.preventDefault();
      if (!(dirty && submit(key === "n" ? "next" : "prev"))) { window.location.href = link.href; }
    } else if (key === "Enter") {
      if (tag === "A" || tag === "BUTTON" || tag === "SUMMARY") { return; }  // their own Enter
      e.preventDefault();
      if (!submit("next")) { submit("stay"); }
    } else if (key === "s") {
      e.preventDefault();
      submit("stay");
    } else if (key === "c" && active) {
      e.preventDefault();
      focusField(active.querySelector('input[type="text"]'));
    } else if (key === "r") {
      e.preventDefault();
      focusField(document.getElementById("rater"));
    } else if (key === "m") {
      e.preventDefault();
      focusNext();
    }
  });
}());
