/*
 * Rulebook site behaviour, on top of MkDocs Material. Offline: no network, and
 * it works when the site is opened from disk (file://).
 *
 * - The "Detalles técnicos" switch (.rb-tech-switch in the header): shows the
 *   .rb-tech blocks (names, types, rules source, test-style checks); off by
 *   default, remembered in localStorage ("rulebook.tech"); the page head
 *   applies it before drawing (overrides/main.html).
 * - Search (the header box, [data-rb-search]): the index assets/search-index.js
 *   (window.rulebookSearch.entries: [title, href, kind, weight, text]) is loaded
 *   as a script on first use. Accents and case are ignored both ways; an entry
 *   whose title is the query comes first, then titles that contain it, or every
 *   word of it, then texts; within each, datasheets (weight 3.2), special
 *   rules and glossary terms (3) before sections (2.5), headings (1.5) and
 *   other declarations (1); then rulebook order.
 * - Scrollable tables: on a narrow screen a table wider than the screen becomes
 *   a stack of labelled rows (.rb-stacked); any other container wider than the
 *   screen gets .rb-overflows (a visible hint, see extra.css) and can take the
 *   keyboard focus.
 * - Filters of the datasheet index (form[data-rb-filter]).
 * - Calculators on the rules pages: each procedure's marker
 *   (div[data-rb-calc=NAME]) becomes a "Calculate" switch; the
 *   first one opened loads, by <script src> (which works from file://), the
 *   calculators' data, the resolvers (the JavaScript package's browser.js) and
 *   assets/calculator.js, which draws it (window.rbCalculator.mount). An
 *   address #calc=NAME&… opens that procedure's calculator with its state.
 * - The page's content (filters, scroll hints) is set up again whenever
 *   Material's document$ announces new content (instant navigation, or
 *   rulebook serve putting an edited page in place).
 * - Words shown to players come from window.rulebookMessages, written by
 *   overrides/main.html from the rulebook's language (mkdocs.yml extra.rb).
 */
(function () {
  "use strict";

  var STORAGE = "rulebook.tech";
  var MAX_RESULTS = 30;
  var html = document.documentElement;
  var MESSAGES = window.rulebookMessages || {};

  // A phrase of the site's language: MESSAGES[key] with "{n}" replaced.
  function say(key, n) {
    return String(MESSAGES[key] || key).replace("{n}", String(n));
  }

  /* ------------------------------------------------------------ helpers */

  // Lower case without accents, one character for each character (positions stay valid).
  function foldChars(text) {
    return text.replace(/[\s\S]/g, function (c) {
      return ((c.normalize ? c.normalize("NFD") : c).charAt(0) || c).toLowerCase().charAt(0) || c;
    });
  }

  function words(text) {
    return foldChars(text).split(/[^a-z0-9]+/).filter(Boolean);
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c];
    });
  }

  function siteBase() {
    try {
      return JSON.parse(document.getElementById("__config").textContent).base || ".";
    } catch (e) {
      return ".";
    }
  }

  /* ------------------------------------------------------------ technical details */

  function setTech(on) {
    if (on) html.setAttribute("data-rb-tech", "on");
    else html.removeAttribute("data-rb-tech");
    try {
      localStorage.setItem(STORAGE, on ? "on" : "off");
    } catch (e) { /* private mode: not remembered */ }
    document.querySelectorAll(".rb-tech-switch").forEach(function (b) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
    markOverflow();
  }

  document.querySelectorAll(".rb-tech-switch").forEach(function (b) {
    b.setAttribute("aria-pressed", html.hasAttribute("data-rb-tech") ? "true" : "false");
    b.addEventListener("click", function () {
      setTech(!html.hasAttribute("data-rb-tech"));
    });
  });

  /* ------------------------------------------------------------ scrollable tables */

  // On a narrow screen, a table wider than its box becomes a stack of rows (extra.css
  // .rb-stacked), each cell labelled with its column's header (data-rb-label): no column is
  // hidden sideways. Wider screens keep the table (and its scroll hint); so does a table
  // whose cells span several columns or rows.
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 44.984375em)") : { matches: false };
  function stackWideTables() {
    document.querySelectorAll(".md-typeset table").forEach(function (table) {
      if (!narrow.matches || table.classList.contains("rb-stacked")) {
        if (!narrow.matches) table.classList.remove("rb-stacked");
        return;
      }
      var box = table.closest(".md-typeset__scrollwrap, .rb-scroll") || table.parentElement;
      var heads = table.querySelectorAll("thead th");
      if (box.scrollWidth <= box.clientWidth + 1 || !heads.length || table.querySelector("[colspan], [rowspan]")) return;
      var labels = Array.prototype.map.call(heads, function (th) { return th.textContent.trim(); });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (cell, i) {
          if (labels[i]) cell.setAttribute("data-rb-label", labels[i]);
        });
      });
      table.classList.add("rb-stacked");
    });
  }

  function markOverflow() {
    stackWideTables();
    var boxes = document.querySelectorAll(".md-typeset__scrollwrap, .rb-scroll, .md-typeset pre > code");
    boxes.forEach(function (box) {
      var over = box.scrollWidth > box.clientWidth + 1;
      box.classList.toggle("rb-overflows", over);
      if (over) box.setAttribute("data-rb-scroll-hint", say("scroll_hint"));
      if (over && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    });
  }

  window.addEventListener("load", markOverflow);
  window.addEventListener("resize", markOverflow);
  document.addEventListener("toggle", markOverflow, true);

  /* ------------------------------------------------------------ search */

  var entries = null;
  var loading = null;

  function prepare(raw) {
    return raw.map(function (e, i) {
      var title = e[0].replace(/^\s*[0-9]+(\.[0-9]+)*\.?\s+(?=\S)/, "");
      var tw = words(title);
      return {
        title: e[0], href: e[1], kind: e[2], weight: e[3], text: e[4], order: i,
        tj: " " + tw.join(" ") + " ", tw: tw,
        xj: " " + words(e[0] + " " + e[4]).join(" ") + " ",
        xf: foldChars(e[0] + " " + e[4])
      };
    });
  }

  function loadIndex() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        if (window.rulebookSearch) return resolve();
        var script = document.createElement("script");
        script.src = siteBase() + "/assets/search-index.js";
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      }).then(function () {
        entries = prepare(window.rulebookSearch.entries);
      });
    }
    return loading;
  }

  function tier(e, q, qw) {
    if (e.tj === q) return 5;
    if (e.tj.indexOf(q) >= 0) return 4;
    if (qw.every(function (w) { return e.tj.indexOf(" " + w) >= 0; })) return 3;
    if (qw.every(function (w) { return e.xj.indexOf(" " + w) >= 0; })) return 2;
    if (qw.every(function (w) { return e.xf.indexOf(w) >= 0; })) return 1;
    return 0;
  }

  function search(query) {
    var qw = words(query);
    if (!qw.length || !entries) return [];
    var q = " " + qw.join(" ") + " ";
    var found = [];
    entries.forEach(function (e) {
      var t = tier(e, q, qw);
      if (t) found.push({e: e, t: t});
    });
    found.sort(function (a, b) {
      return b.t - a.t || b.e.weight - a.e.weight || a.e.order - b.e.order;
    });
    return found.map(function (f) { return f.e; });
  }

  // The text with every occurrence of the query's words marked (accents ignored).
  function mark(text, qw) {
    var folded = foldChars(text);
    var spans = [];
    qw.forEach(function (w) {
      for (var i = folded.indexOf(w); i >= 0; i = folded.indexOf(w, i + w.length)) spans.push([i, i + w.length]);
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var out = "", at = 0;
    spans.forEach(function (s) {
      if (s[0] < at) return;
      out += escapeHtml(text.slice(at, s[0])) + "<mark>" + escapeHtml(text.slice(s[0], s[1])) + "</mark>";
      at = s[1];
    });
    return out + escapeHtml(text.slice(at));
  }

  function snippet(text, qw) {
    var folded = foldChars(text);
    var first = Math.min.apply(null, qw.map(function (w) {
      var i = folded.indexOf(w);
      return i < 0 ? Infinity : i;
    }));
    if (!isFinite(first)) first = 0;
    var start = Math.max(0, first - 60);
    var piece = text.slice(start, start + 200);
    return (start ? "…" : "") + mark(piece, qw) + (start + 200 < text.length ? "…" : "");
  }

  function setUpSearch(box) {
    var toggle = document.getElementById("__search");
    var input = box.querySelector(".md-search__input");
    var list = box.querySelector(".md-search-result__list");
    var meta = box.querySelector(".md-search-result__meta");
    var form = box.querySelector("form");
    var hint = meta.textContent;

    function open() {
      if (toggle && !toggle.checked) toggle.checked = true;
      loadIndex().then(render, function () {
        meta.textContent = say("search_failed");
      });
    }

    function close() {
      if (toggle) toggle.checked = false;
      input.blur();
    }

    function render() {
      var qw = words(input.value);
      if (!qw.length) {
        meta.textContent = hint;
        list.innerHTML = "";
        return;
      }
      var results = search(input.value);
      meta.textContent = results.length === 0 ? say("no_results")
        : results.length === 1 ? say("one_result") : say("n_results", results.length);
      list.innerHTML = results.slice(0, MAX_RESULTS).map(function (e) {
        var href = siteBase() + "/" + e.href;
        return "<li class=\"md-search-result__item\"><a href=\"" + escapeHtml(href) + "\" class=\"md-search-result__link\">"
          + "<article class=\"md-search-result__article md-typeset\">"
          + "<h1>" + mark(e.title, qw) + "</h1>"
          + (e.kind ? "<p class=\"rb-search-kind\">" + escapeHtml(e.kind) + "</p>" : "")
          + (e.text ? "<p>" + snippet(e.text, qw) + "</p>" : "")
          + "</article></a></li>";
      }).join("");
    }

    input.addEventListener("focus", open);
    input.addEventListener("input", function () {
      if (entries) render();
      else open();
    });
    input.addEventListener("keydown", function (ev) {
      var first = list.querySelector("a");
      if (ev.key === "Enter") {
        ev.preventDefault();
        if (first) location.href = first.href;
      } else if (ev.key === "ArrowDown" && first) {
        ev.preventDefault();
        first.focus();
      } else if (ev.key === "Escape") {
        close();
      }
    });
    list.addEventListener("keydown", function (ev) {
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var i = links.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" && i < links.length - 1) { ev.preventDefault(); links[i + 1].focus(); }
      if (ev.key === "ArrowUp") { ev.preventDefault(); (i > 0 ? links[i - 1] : input).focus(); }
      if (ev.key === "Escape") close();
    });
    list.addEventListener("click", function (ev) {
      if (ev.target.closest("a")) close();
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { render(); input.focus(); }, 0);
    });
    if (toggle) {
      toggle.addEventListener("change", function () {
        if (toggle.checked) setTimeout(function () { input.focus(); }, 50);
        else input.blur();
      });
    }
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      var typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        ev.preventDefault();
        input.focus();
      }
    });
  }

  document.querySelectorAll("[data-rb-search]").forEach(setUpSearch);

  /* ------------------------------------------------------------ datasheet index filters */

  function setUpFilter(form) {
    var table = document.getElementById(form.getAttribute("data-rb-filter"));
    var count = document.querySelector("[data-rb-count]");
    if (!table) return;
    function value(name) {
      var field = form.elements.namedItem(name);
      return field ? field.value : "";
    }
    function apply() {
      var qw = words(value("q"));
      var group = value("group"), type = value("type"), rule = value("rule");
      var cost = parseInt(value("cost"), 10);
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var d = row.dataset;
        var ok = (!group || d.group === group) && (!type || d.type === type)
          && (isNaN(cost) || (d.cost !== "" && Number(d.cost) <= cost))
          && (!rule || (" " + d.rules + " ").indexOf(" " + rule + " ") >= 0)
          && qw.every(function (w) { return d.text.indexOf(w) >= 0; });
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      if (count) count.textContent = String(shown);
    }
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    apply();
  }

  /* ------------------------------------------------------------ calculators on the rules pages */

  var CALC_SCRIPTS = ["assets/calc/data.js", "assets/calc/resolvers.js", "assets/calculator.js"];
  var CALC_CSS = "assets/calculator.css";
  var calcLoading = null;

  // The calculators' scripts, loaded once, in order; calls back when window.rbCalculator is there.
  function loadCalculators(done, failed) {
    if (window.rbCalculator) { done(); return; }
    if (!calcLoading) {
      calcLoading = { done: [], failed: [] };
      var css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = CALC_CSS;
      document.head.appendChild(css);
      var next = function (i) {
        if (i === CALC_SCRIPTS.length) {
          var waiting = calcLoading;
          calcLoading = window.rbCalculator ? null : calcLoading;
          waiting.done.forEach(function (f) { f(); });
          return;
        }
        var s = document.createElement("script");
        s.src = CALC_SCRIPTS[i];
        s.onload = function () { next(i + 1); };
        s.onerror = function () {
          var waiting = calcLoading;
          calcLoading = null;
          waiting.failed.forEach(function (f) { f(); });
        };
        document.body.appendChild(s);
      };
      next(0);
    }
    calcLoading.done.push(done);
    calcLoading.failed.push(failed);
  }

  function openCalculator(box, state) {
    var target = box.querySelector(".rb-calc");
    if (target.getAttribute("data-mounted")) {
      if (state) window.rbCalculator.mount(target, state);
      return;
    }
    target.textContent = say("calc_loading");
    loadCalculators(function () {
      if (!target.getAttribute("data-mounted")) target.textContent = "";
      window.rbCalculator.mount(target, state || null);
    }, function () {
      target.textContent = say("calc_failed");
    });
  }

  function setUpCalculatorSlot(slot) {
    if (slot.getAttribute("data-ready")) return;
    slot.setAttribute("data-ready", "1");
    var box = document.createElement("details");
    box.className = "rb-calc-box example";
    var summary = document.createElement("summary");
    summary.textContent = say("calculate");
    var target = document.createElement("div");
    target.className = "rb-calc";
    target.setAttribute("data-proc", slot.getAttribute("data-rb-calc"));
    box.appendChild(summary);
    box.appendChild(target);
    slot.appendChild(box);
    box.addEventListener("toggle", function () { if (box.open) openCalculator(box, null); });
  }

  // #calc=NAME&…: the state of NAME's calculator (assets/calculator.js reads the rest).
  function calculatorInAddress() {
    var m = /^#calc=([^&]*)/.exec(location.hash);
    if (!m) return;
    var name = decodeURIComponent(m[1]);
    var slot = document.querySelector('div[data-rb-calc="' + (window.CSS && CSS.escape ? CSS.escape(name) : name) + '"]');
    if (!slot) return;
    var box = slot.querySelector("details");
    box.open = true;
    openCalculator(box, location.hash);
    slot.scrollIntoView();
  }
  window.addEventListener("hashchange", calculatorInAddress);

  /* ------------------------------------------------------------ the page's content */

  // Content is set up when the page loads and again whenever Material's document$
  // announces new content (Material's instant navigation, or rulebook serve putting an
  // edited page in place): the filters, and the scroll hints once it is drawn.
  function setUpContent() {
    document.querySelectorAll("form[data-rb-filter]").forEach(setUpFilter);
    var slots = document.querySelectorAll("div[data-rb-calc]");
    slots.forEach(setUpCalculatorSlot);
    if (slots.length) calculatorInAddress();
    requestAnimationFrame(markOverflow);
  }

  if (window.document$ && window.document$.subscribe) window.document$.subscribe(setUpContent);
  else setUpContent();
})();
