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
 *   as a script on first use. Accents and case are ignored both ways; a name
 *   written with hyphens or spaces is one term ("T-26 B", "t26", "t 26 b" are
 *   the same); a term finds the words it begins, the words of the same stem in
 *   the rulebook's language ("tendidos" finds "tendidas") and, from five
 *   letters, the words one typo away. An entry whose title is the query comes
 *   first, then titles that hold it, or hold every term, then texts; within
 *   each, datasheets (weight 3.2), special rules and glossary terms (3) before
 *   sections (2.5), headings (1.5) and other declarations (1), then a title
 *   that begins with the query, the better matches, the shorter title,
 *   rulebook order. Only whole matched terms are marked in the results.
 * - Scrollable tables: on a narrow screen a table wider than the screen becomes
 *   a stack of labelled rows (.rb-stacked); any other container wider than the
 *   screen gets .rb-overflows (a visible hint, see extra.css) and can take the
 *   keyboard focus.
 * - Glossary terms (abbr with a title) take the keyboard focus: Material's
 *   tooltip shows the definition on focus as on hover.
 * - Filters of the datasheet index (form[data-rb-filter]).
 * - Calculators on the rules pages and the calculators page (whose filter box
 *   is run here): each procedure's marker
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

  // Material takes a code block's tabindex away on screens without hover; one
  // wider than its box keeps it (a keyboard scrolls it).
  var keepFocusable = window.MutationObserver ? new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      var box = change.target;
      if (box.classList.contains("rb-overflows") && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    });
  }) : null;
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
      if (over && keepFocusable && box.tagName === "CODE") keepFocusable.observe(box, {attributes: true, attributeFilter: ["tabindex"]});
    });
  }

  window.addEventListener("load", markOverflow);
  window.addEventListener("resize", markOverflow);
  document.addEventListener("toggle", markOverflow, true);

  /* ------------------------------------------------------------ search */

  var entries = null;
  var vocabulary = null; // every token of the index → its stem
  var loading = null;
  var LANGUAGE = (html.getAttribute("lang") || "en").slice(0, 2);

  // The words of a folded text with their places: [start, end, word].
  function pieces(folded) {
    var out = [], re = /[a-z0-9]+/g, m;
    while ((m = re.exec(folded))) out.push([m.index, m.index + m[0].length, m[0]]);
    return out;
  }

  // Whether two neighbouring words are one name: joined by a hyphen ("T-26",
  // "BT-5"), or a number and at most three letters apart ("T 26", "26 B").
  function joined(folded, a, b) {
    var gap = folded.slice(a[1], b[0]);
    if (gap === "-" || gap === "\u2010" || gap === "\u2011") return true;
    if (gap !== " ") return false;
    var digitBefore = /[0-9]$/.test(a[2]), digitAfter = /^[0-9]/.test(b[2]);
    if (digitBefore === digitAfter) return false;
    var letters = digitBefore ? b[2] : a[2];
    return letters.length <= 3 && /^[a-z]+$/.test(letters);
  }

  // The terms of a folded text: each word, and each name written in several
  // words ("T-26 B" → "t26b") as one term: [start, end, term, whether a name].
  function terms(folded) {
    var ps = pieces(folded), out = [];
    for (var i = 0; i < ps.length; i++) {
      out.push([ps[i][0], ps[i][1], ps[i][2], false]);
      if (i > 0 && joined(folded, ps[i - 1], ps[i])) continue;
      var j = i, name = ps[i][2];
      while (j + 1 < ps.length && joined(folded, ps[j], ps[j + 1])) name += ps[++j][2];
      if (j > i) out.push([ps[i][0], ps[j][1], name, true]);
    }
    return out;
  }

  // What a player typed, as terms: a name written in several words is one term.
  function queryTerms(query) {
    var folded = foldChars(query), all = terms(folded), inName = {};
    all.forEach(function (t) {
      if (t[3]) all.forEach(function (p) { if (!p[3] && p[0] >= t[0] && p[1] <= t[1]) inName[p[0]] = true; });
    });
    return all.filter(function (t) { return t[3] || !inName[t[0]]; }).map(function (t) { return t[2]; });
  }

  // A word's stem in the rulebook's language: plurals, and in Spanish the
  // gender vowel ("tendidos", "tendidas" → "tendid"), stripped. Short words stay.
  function stem(word) {
    if (word.length < 5 || /[0-9]/.test(word)) return word;
    if (LANGUAGE === "es") {
      word = word.replace(/(?:es|s)$/, "");
      return word.length > 4 ? word.replace(/[aoe]$/, "") : word;
    }
    if (/ies$/.test(word)) return word.slice(0, -3) + "y";
    return word.replace(/(?:ing|ed|es|s)$/, "").replace(/(.)\1$/, "$1") || word;
  }

  // Whether a and b are at most one typo apart (a letter changed, added,
  // left out, or two neighbours swapped).
  function oneTypo(a, b) {
    if (Math.abs(a.length - b.length) > 1 || a === b) return false;
    var i = 0;
    while (i < a.length && a.charAt(i) === b.charAt(i)) i++;
    if (a.length === b.length) {
      return a.slice(i + 1) === b.slice(i + 1)
        || (a.charAt(i) === b.charAt(i + 1) && a.charAt(i + 1) === b.charAt(i) && a.slice(i + 2) === b.slice(i + 2));
    }
    return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
  }

  function prepare(raw) {
    vocabulary = {};
    return raw.map(function (e, i) {
      var title = foldChars(e[0].replace(/^\s*[0-9]+(\.[0-9]+)*\.?\s+(?=\S)/, ""));
      var titleTerms = terms(title), textTerms = terms(foldChars(e[0] + " " + e[4]));
      var tokens = {}, titleTokens = {};
      textTerms.forEach(function (t) { tokens[t[2]] = true; vocabulary[t[2]] = vocabulary[t[2]] || stem(t[2]); });
      titleTerms.forEach(function (t) { titleTokens[t[2]] = true; });
      var words = pieces(title), compact = "", starts = [];
      words.forEach(function (w) { starts.push(compact.length); compact += w[2]; });
      return {
        title: e[0], href: e[1], kind: e[2], weight: e[3], text: e[4], order: i,
        tokens: Object.keys(tokens), titleTokens: titleTokens, compact: compact, starts: starts,
        folded: foldChars(e[0] + " " + e[4])
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

  // The index's tokens a query term finds, each with how well: the word
  // itself 1, a word it begins 0.8 (the last term, being typed, or one of
  // three letters or more), the same stem 0.7, one typo away (terms of five
  // letters or more) 0.5.
  function matches(term, last) {
    var found = {}, termStem = stem(term), prefix = last || term.length >= 3;
    Object.keys(vocabulary).forEach(function (token) {
      var q = token === term ? 1
        : prefix && token.lastIndexOf(term, 0) === 0 ? 0.8
        : vocabulary[token] === termStem && termStem.length >= 4 ? 0.7
        : term.length >= 5 && oneTypo(term, token) ? 0.5 : 0;
      if (q) found[token] = q;
    });
    return found;
  }

  // How an entry answers the query: 5 its title is the query, 4 its title
  // holds it (from a word's start), 3 every term is in the title, 2 every
  // term is in the title or text, 1 every term is inside the text's words;
  // 0 not at all. And how well its terms matched.
  function rank(e, query, found) {
    var tier = 0;
    if (e.compact === query) tier = 5;
    else if (query && e.starts.some(function (s) { return e.compact.lastIndexOf(query, s) === s; })) tier = 4;
    var score = 0, inTitle = true, inText = true;
    found.forEach(function (f) {
      var best = 0, bestTitle = 0;
      e.tokens.forEach(function (t) {
        var q = f[t] || 0;
        if (q > best) best = q;
        if (q > bestTitle && e.titleTokens[t]) bestTitle = q;
      });
      if (!bestTitle) inTitle = false;
      if (!best) inText = false;
      score += bestTitle ? bestTitle + 1 : best;
    });
    if (!tier) tier = inTitle ? 3 : inText ? 2 : 0;
    return [tier, score];
  }

  // The entries that answer the query, best first: by how (rank), then
  // datasheets (weight 3.2), special rules and glossary terms (3) before
  // sections (2.5), headings (1.5) and other declarations (1), a title that
  // begins with the query, how well the terms matched, the shorter title,
  // rulebook order. Returns {results, found: the tokens matched}.
  function search(query) {
    var qt = queryTerms(query);
    if (!qt.length || !entries) return {results: [], found: {}};
    var compactQuery = pieces(foldChars(query)).map(function (p) { return p[2]; }).join("");
    var raw = pieces(foldChars(query)).map(function (p) { return p[2]; });
    var found = qt.map(function (t, i) { return matches(t, i === qt.length - 1); });
    var ranked = [];
    var begins = function (e) { return compactQuery && e.compact.lastIndexOf(compactQuery, 0) === 0 ? 1 : 0; };
    entries.forEach(function (e) {
      var r = rank(e, compactQuery, found);
      if (!r[0] && raw.every(function (w) { return e.folded.indexOf(w) >= 0; })) r = [1, 0];
      if (r[0]) ranked.push({e: e, tier: r[0], score: r[1]});
    });
    ranked.sort(function (a, b) {
      return b.tier - a.tier || b.e.weight - a.e.weight || begins(b.e) - begins(a.e) || b.score - a.score
        || a.e.compact.length - b.e.compact.length || a.e.order - b.e.order;
    });
    var marked = {};
    found.forEach(function (f) { Object.keys(f).forEach(function (t) { marked[t] = true; }); });
    return {results: ranked.map(function (r) { return r.e; }), found: marked};
  }

  // The places of the text's matched terms (whole words or names, never
  // letters inside a word), in order, without overlaps.
  function places(text, found) {
    var spans = terms(foldChars(text)).filter(function (t) { return found[t[2]]; });
    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var out = [], at = 0;
    spans.forEach(function (s) {
      if (s[0] >= at) { out.push(s); at = s[1]; }
    });
    return out;
  }

  // The text with its matched terms marked.
  function mark(text, found) {
    var out = "", at = 0;
    places(text, found).forEach(function (s) {
      out += escapeHtml(text.slice(at, s[0])) + "<mark>" + escapeHtml(text.slice(s[0], s[1])) + "</mark>";
      at = s[1];
    });
    return out + escapeHtml(text.slice(at));
  }

  function snippet(text, found) {
    var first = places(text, found)[0];
    var start = Math.max(0, (first ? first[0] : 0) - 60);
    while (start > 0 && /\S/.test(text.charAt(start - 1))) start--;
    var piece = text.slice(start, start + 200);
    return (start ? "…" : "") + mark(piece, found) + (start + 200 < text.length ? "…" : "");
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
      var answer = search(input.value), results = answer.results;
      meta.textContent = results.length === 0 ? say("no_results")
        : results.length === 1 ? say("one_result") : say("n_results", results.length);
      list.innerHTML = results.slice(0, MAX_RESULTS).map(function (e) {
        var href = siteBase() + "/" + e.href;
        return "<li class=\"md-search-result__item\"><a href=\"" + escapeHtml(href) + "\" class=\"md-search-result__link\">"
          + "<article class=\"md-search-result__article md-typeset\">"
          + "<h1>" + mark(e.title, answer.found) + "</h1>"
          + (e.kind ? "<p class=\"rb-search-kind\">" + escapeHtml(e.kind) + "</p>" : "")
          + (e.text ? "<p>" + snippet(e.text, answer.found) + "</p>" : "")
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

  // The calculators page ([data-rb-calc-page]): its filter box hides the calculators whose
  // title, source and inputs (data-search) miss a word typed, and their headings.
  function setUpCalculatorFilter(page) {
    if (page.getAttribute("data-ready")) return;
    page.setAttribute("data-ready", "1");
    var filter = page.querySelector("[data-rb-calc-filter]");
    var nomatch = page.querySelector(".rb-calc-nomatch");
    if (!filter) return;
    var sections = Array.prototype.slice.call(document.querySelectorAll("[data-rb-calc-section]"));
    filter.closest(".rb-calc-filter").hidden = false;
    filter.addEventListener("input", function () {
      var wanted = words(filter.value);
      var shown = 0;
      sections.forEach(function (s) {
        var text = words(s.getAttribute("data-search") || "").join(" ");
        var ok = wanted.every(function (w) { return text.indexOf(w) >= 0; });
        s.hidden = !ok;
        var heading = s.previousElementSibling;
        if (heading && /^H[1-6]$/.test(heading.tagName)) heading.hidden = !ok;
        if (ok) shown += 1;
      });
      if (nomatch) nomatch.hidden = shown > 0;
    });
  }

  /* ------------------------------------------------------------ the page's content */

  // Content is set up when the page loads and again whenever Material's document$
  // announces new content (Material's instant navigation, or rulebook serve putting an
  // edited page in place): the filters, and the scroll hints once it is drawn.
  function setUpContent() {
    // glossary terms take the keyboard's focus, and Material shows their tooltip on focus as on hover
    document.querySelectorAll(".md-typeset abbr[title], .md-typeset abbr[aria-describedby]").forEach(function (term) {
      if (!term.hasAttribute("tabindex")) term.setAttribute("tabindex", "0");
    });
    document.querySelectorAll("form[data-rb-filter]").forEach(setUpFilter);
    var slots = document.querySelectorAll("div[data-rb-calc]");
    slots.forEach(setUpCalculatorSlot);
    document.querySelectorAll("[data-rb-calc-page]").forEach(setUpCalculatorFilter);
    if (slots.length) calculatorInAddress();
    requestAnimationFrame(markOverflow);
  }

  if (window.document$ && window.document$.subscribe) window.document$.subscribe(setUpContent);
  else setUpContent();
})();
