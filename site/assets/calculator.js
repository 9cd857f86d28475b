/*
 * The procedures' calculators (compiler/emit/site/pages/calculators.py): on the
 * calculators page (one per procedure; a filter box finds them) and on the rules
 * pages (under each procedure), each behind a "Calculate" switch:
 * site/assets/rulebook.js loads this script when the first one is opened and
 * calls window.rbCalculator.mount. Offline, from file:// too.
 *
 * Reads window.rbCalcData (assets/calc/data.js: each procedure's parameters as
 * type descriptors with the labels players read, its result's descriptor, the
 * worked examples' inputs, enum titles, entry names, the phrases) and the
 * resolvers of the JavaScript package (assets/calc/resolvers.js, the package's
 * browser.js: globalThis[rbCalcData.global].resolve(name, input, options)).
 *
 * A calculator: a form (a ref is a picker of entry names, an enum one of
 * member titles, a bool a switch, an int a stepper, an optional value has a
 * "none" choice, a list of choices is a multi-select, other lists add and
 * remove rows, a record is a group of fields) whose every change resolves the
 * exact distribution again and draws it: bars (HTML, no chart library: one
 * bar per outcome), a table with each outcome's probability (exactly, and at
 * least / at most when the result is an ordered number), the mean; a record
 * result gets one chart per field. "Roll once" resolves one sampled run with
 * the next seed and shows its trace as the runtime writes it. A rule error is
 * shown as a message. "Compare" copies the inputs into a second column; both
 * columns are drawn on the same scale (and, for a numeric result with a costed
 * unit among the inputs, the mean per 100 points of cost). The state is kept in the
 * address, #calc=NAME&param=value… (b.param for the second column), so a link
 * reopens it.
 *
 * Probabilities arrive as exact fractions ("n/d"); sums (at least, at most,
 * means of a record's fields) are exact (BigInt), and shown as percentages with
 * one decimal, the fraction beside them or on hover.
 */
(function () {
  "use strict";

  var D = window.rbCalcData;
  if (!D || window.rbCalculator) return;
  var T = D.text;
  var TR = D.trace;
  var NONE = "\u0000none";

  function say(key, vars) {
    return String(T[key] || key).replace(/\{(\w+)\}/g, function (m, k) { return vars && k in vars ? String(vars[k]) : m; });
  }

  function api() { return globalThis[D.global]; }

  /* ------------------------------------------------------------ exact fractions (BigInt) */

  function gcd(a, b) {
    if (a < 0n) a = -a;
    if (b < 0n) b = -b;
    while (b) { var t = a % b; a = b; b = t; }
    return a;
  }

  function frac(v) {
    if (typeof v === "boolean") return [v ? 1n : 0n, 1n];
    if (typeof v === "number") {
      if (Number.isInteger(v)) return [BigInt(v), 1n];
      var s = String(v), dot = s.indexOf(".");
      if (dot < 0 || /e/i.test(s)) return null;
      var den = 10n ** BigInt(s.length - dot - 1);
      return norm([BigInt(s.replace(".", "")), den]);
    }
    var m = /^(-?\d+)(?:\/(\d+))?$/.exec(String(v));
    return m ? norm([BigInt(m[1]), m[2] ? BigInt(m[2]) : 1n]) : null;
  }

  function norm(x) {
    var g = gcd(x[0], x[1]) || 1n;
    return x[1] < 0n ? [-x[0] / g, -x[1] / g] : [x[0] / g, x[1] / g];
  }

  function add(x, y) { return norm([x[0] * y[1] + y[0] * x[1], x[1] * y[1]]); }
  function mul(x, y) { return norm([x[0] * y[0], x[1] * y[1]]); }
  function cmp(x, y) { var d = x[0] * y[1] - y[0] * x[1]; return d < 0n ? -1 : d > 0n ? 1 : 0; }
  function toFloat(x) { return Number(x[0] * 1000000000000n / x[1]) / 1e12; }

  /* ------------------------------------------------------------ numbers as the site writes them */

  function local(text) { return text.replace(".", D.dec).replace(/^-/, "\u2212"); }

  function fracText(x) { return local(x[1] === 1n ? String(x[0]) : x[0] + "/" + x[1]); }

  function decimalText(x) {
    if (x[1] === 1n) return local(String(x[0]));
    var f = toFloat(x);
    return local(String(Number(f.toFixed(Math.abs(f) < 10 ? 3 : 2))));
  }

  function pct(x) { return local((toFloat(x) * 100).toFixed(1)) + D.pct; }

  /* ------------------------------------------------------------ values as players read them */

  function enumTitle(name, v) {
    var e = D.enums[name];
    var m = e && e.m.find(function (p) { return p[0] === v; });
    return m ? m[1] : String(v);
  }

  function entryTitle(catalogs, v) {
    for (var i = 0; i < catalogs.length; i++) {
      var c = D.catalogs[catalogs[i]];
      var e = c && c.e.find(function (p) { return p[0] === v; });
      if (e) return e[1];
    }
    return String(v);
  }

  function label(desc, v) {
    if (v === null || v === undefined) return T.none;
    switch (desc.k) {
      case "opt": return label(desc.of, v);
      case "bool": return v ? T.yes : T.no;
      case "int": case "dec": { var x = frac(v); return x ? decimalText(x) : String(v); }
      case "enum": return enumTitle(desc.of, v);
      case "ref": return entryTitle(desc.of, v);
      case "rule": { var r = D.rules.find(function (p) { return p[0] === v; }); return r ? r[1] : String(v); }
      case "list": return v.map(function (x) { return label(desc.of, x); }).join(", ") || "—";
      case "rec": return (D.records[desc.of] || []).filter(function (f) { return f[0] in v; })
        .map(function (f) { return f[1] + ": " + label(f[2], v[f[0]]); }).join("; ");
      case "map": return Object.keys(v).map(function (k) { return enumTitle(desc.of, k) + ": " + label(desc.v, v[k]); }).join("; ");
      default: return typeof v === "string" ? v : JSON.stringify(v);
    }
  }

  function numeric(desc) { return desc.k === "int" || desc.k === "dec"; }
  function ordered(desc) { return numeric(desc) || (desc.k === "enum" && D.enums[desc.of] && D.enums[desc.of].o); }

  /* ------------------------------------------------------------ DOM helpers */

  function h(tag, cls, text) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined && text !== null) el.textContent = text;
    return el;
  }

  var ids = 0;
  function newId() { ids += 1; return "rb-calc-" + ids; }

  /* ------------------------------------------------------------ inputs */

  // A value for a descriptor when nothing gives one (a new row of a list).
  function blank(desc) {
    switch (desc.k) {
      case "int": return desc.min !== undefined ? desc.min : 0;
      case "dec": return 0;
      case "bool": return false;
      case "text": return "";
      case "enum": return D.enums[desc.of].m.length ? D.enums[desc.of].m[0][0] : "";
      case "ref": { var c = D.catalogs[desc.of[0]]; return c && c.e.length ? c.e[0][0] : ""; }
      case "rule": return D.rules.length ? D.rules[0][0] : "";
      case "list": return [];
      case "rec": {
        var o = {};
        (D.records[desc.of] || []).forEach(function (f) { if (f[2].k !== "opt") o[f[0]] = blank(f[2]); });
        return o;
      }
      case "map": {
        var m = {};
        D.enums[desc.of].m.forEach(function (p) { m[p[0]] = blank(desc.v); });
        return m;
      }
      default: return null;
    }
  }

  function Problem(message) { this.message = message; }

  function choicesOf(desc) {
    if (desc.k === "enum") return [{ items: D.enums[desc.of].m }];
    if (desc.k === "rule") return [{ items: D.rules }];
    if (desc.k === "ref") {
      return desc.of.map(function (c) { return { title: desc.of.length > 1 ? D.catalogs[c].t : null, items: D.catalogs[c].e }; });
    }
    return null;
  }

  function isChoice(desc) { return desc.k === "enum" || desc.k === "ref" || desc.k === "rule"; }

  function selectEditor(desc, value, id, withNone) {
    var select = h("select", "rb-calc-select");
    select.id = id;
    var known = {};
    if (withNone) {
      var none = h("option", null, "— " + T.none + " —");
      none.value = NONE;
      select.appendChild(none);
    }
    choicesOf(desc).forEach(function (group) {
      var parent = select;
      if (group.title) {
        parent = h("optgroup");
        parent.label = group.title;
        select.appendChild(parent);
      }
      group.items.forEach(function (p) {
        var o = h("option", null, p[1]);
        o.value = p[0];
        known[p[0]] = true;
        parent.appendChild(o);
      });
    });
    if (value !== null && value !== undefined && !known[value]) {
      var odd = h("option", null, String(value));
      odd.value = String(value);
      select.appendChild(odd);
    }
    select.value = value === null || value === undefined ? (withNone ? NONE : select.value) : String(value);
    return { el: select, focus: select, get: function () { return select.value === NONE ? null : select.value; } };
  }

  function intEditor(desc, value, id, name, changed) {
    var wrap = h("span", "rb-calc-stepper");
    var input = h("input");
    input.type = "number";
    input.id = id;
    input.step = "1";
    input.inputMode = "numeric";
    if (desc.min !== undefined) input.min = String(desc.min);
    if (desc.max !== undefined) input.max = String(desc.max);
    input.value = value === null || value === undefined ? "" : String(value);
    function bump(by) {
      var n = parseInt(input.value, 10);
      n = (isNaN(n) ? 0 : n) + by;
      if (desc.min !== undefined && n < desc.min) n = desc.min;
      if (desc.max !== undefined && n > desc.max) n = desc.max;
      input.value = String(n);
      changed();
    }
    var minus = h("button", "rb-calc-step", "\u2212");
    minus.type = "button";
    minus.setAttribute("aria-label", name + " \u22121");
    minus.addEventListener("click", function () { bump(-1); });
    var plus = h("button", "rb-calc-step", "+");
    plus.type = "button";
    plus.setAttribute("aria-label", name + " +1");
    plus.addEventListener("click", function () { bump(1); });
    wrap.appendChild(minus);
    wrap.appendChild(input);
    wrap.appendChild(plus);
    return {
      el: wrap, focus: input, typed: input,
      get: function () {
        var t = input.value.trim();
        if (!/^-?\d+$/.test(t)) throw new Problem(say("not_number", { name: name }));
        return parseInt(t, 10);
      },
    };
  }

  function textEditor(value, id, dec, name) {
    var input = h("input", "rb-calc-text");
    input.type = "text";
    input.id = id;
    if (dec) input.inputMode = "decimal";
    input.value = value === null || value === undefined ? "" : (dec ? local(String(value)) : String(value));
    return {
      el: input, focus: input, typed: input,
      get: function () {
        if (!dec) return input.value;
        var t = input.value.trim().replace(",", ".").replace("\u2212", "-");
        var n = Number(t);
        if (t === "" || !isFinite(n)) throw new Problem(say("not_number", { name: name }));
        return n;
      },
    };
  }

  function switchEditor(value, id) {
    var input = h("input", "rb-calc-switch");
    input.type = "checkbox";
    input.id = id;
    input.setAttribute("role", "switch");
    input.checked = !!value;
    return { el: input, focus: input, get: function () { return input.checked; } };
  }

  function jsonEditor(value, id, name) {
    var area = h("textarea", "rb-calc-json");
    area.id = id;
    area.rows = 2;
    area.value = JSON.stringify(value === undefined ? null : value);
    return {
      el: area, focus: area, typed: area,
      get: function () {
        try { return JSON.parse(area.value); } catch (e) { throw new Problem(say("bad_json", { name: name })); }
      },
    };
  }

  // A list of choices: one checkbox per choice (the value keeps the choices' order).
  function multiEditor(desc, value, name) {
    var box = h("div", "rb-calc-multi");
    var boxes = [];
    var chosen = {};
    (value || []).forEach(function (v) { chosen[v] = true; });
    choicesOf(desc).forEach(function (group) {
      if (group.title) box.appendChild(h("p", "rb-calc-group", group.title));
      group.items.forEach(function (p) {
        var l = h("label", "rb-calc-check");
        var c = h("input");
        c.type = "checkbox";
        c.value = p[0];
        c.checked = !!chosen[p[0]];
        l.appendChild(c);
        l.appendChild(document.createTextNode(" " + p[1]));
        box.appendChild(l);
        boxes.push(c);
      });
    });
    if (boxes.length > 8) box.classList.add("rb-calc-multi--long");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", name);
    return { el: box, get: function () { return boxes.filter(function (c) { return c.checked; }).map(function (c) { return c.value; }); } };
  }

  function listEditor(desc, value, name, changed) {
    var box = h("div", "rb-calc-list");
    var rows = h("ol", "rb-calc-rows");
    var editors = [];
    function addRow(v) {
      var li = h("li");
      var ed = editor(desc.of, v, newId(), name + " " + (editors.length + 1), changed);
      var remove = h("button", "rb-calc-remove", "\u00d7");
      remove.type = "button";
      remove.title = T.remove;
      remove.setAttribute("aria-label", T.remove);
      li.appendChild(ed.el);
      li.appendChild(remove);
      rows.appendChild(li);
      var entry = { li: li, ed: ed };
      editors.push(entry);
      remove.addEventListener("click", function () {
        editors.splice(editors.indexOf(entry), 1);
        li.remove();
        changed();
      });
    }
    (value || []).forEach(addRow);
    var more = h("button", "rb-calc-add", "+ " + T.add);
    more.type = "button";
    more.addEventListener("click", function () { addRow(blank(desc.of)); changed(); });
    box.appendChild(rows);
    box.appendChild(more);
    return { el: box, get: function () { return editors.map(function (e) { return e.ed.get(); }); } };
  }

  function groupEditor(fields, value, changed) {
    var box = h("div", "rb-calc-fields");
    var parts = fields.map(function (f) {
      var v = value && f.name in value ? value[f.name] : (f.desc.k === "opt" ? null : blank(f.desc));
      var fe = field(f.label, f.desc, v, changed);
      box.appendChild(fe.el);
      return { name: f.name, fe: fe, opt: f.desc.k === "opt" };
    });
    return {
      el: box,
      get: function () {
        var o = {};
        parts.forEach(function (p) {
          var v = p.fe.get();
          if (!(p.opt && v === null)) o[p.name] = v;
        });
        return o;
      },
    };
  }

  function editor(desc, value, id, name, changed) {
    switch (desc.k) {
      case "int": return intEditor(desc, value, id, name, changed);
      case "dec": return textEditor(value, id, true, name);
      case "text": return textEditor(value, id, false, name);
      case "bool": return switchEditor(value, id);
      case "enum": case "ref": case "rule": return selectEditor(desc, value, id, false);
      case "opt": {
        if (isChoice(desc.of)) return selectEditor(desc.of, value, id, true);
        var wrap = h("span", "rb-calc-opt");
        var inner = editor(desc.of, value === null || value === undefined ? blank(desc.of) : value, id, name, changed);
        var l = h("label", "rb-calc-check");
        var none = h("input");
        none.type = "checkbox";
        none.checked = value === null || value === undefined;
        l.appendChild(none);
        l.appendChild(document.createTextNode(" " + T.none));
        function sync() {
          wrap.querySelectorAll("input, select, button, textarea").forEach(function (x) { if (x !== none) x.disabled = none.checked; });
        }
        none.addEventListener("change", sync);
        wrap.appendChild(inner.el);
        wrap.appendChild(l);
        sync();
        return { el: wrap, focus: inner.focus, typed: inner.typed, get: function () { return none.checked ? null : inner.get(); } };
      }
      case "list":
        if (isChoice(desc.of) && Array.isArray(value) && new Set(value).size === value.length) return multiEditor(desc.of, value, name);
        return listEditor(desc, value, name, changed);
      case "rec":
        return groupEditor((D.records[desc.of] || []).map(function (f) { return { name: f[0], label: f[1], desc: f[2] }; }), value, changed);
      case "map":
        return groupEditor(D.enums[desc.of].m.map(function (p) { return { name: p[0], label: p[1], desc: desc.v }; }), value, changed);
      default: return jsonEditor(value, id, name);
    }
  }

  // One labelled input: a label and its control, or a group with a legend.
  function field(name, desc, value, changed) {
    var id = newId();
    var ed = editor(desc, value, id, name, changed);
    var grouped = !ed.focus || desc.k === "rec" || desc.k === "map" || desc.k === "list";
    var el;
    if (grouped) {
      el = h("fieldset", "rb-calc-field rb-calc-field--group");
      el.appendChild(h("legend", null, name));
    } else {
      el = h("div", "rb-calc-field" + (desc.k === "bool" ? " rb-calc-field--switch" : ""));
      var l = h("label", null, name);
      l.htmlFor = id;
      el.appendChild(l);
    }
    el.appendChild(ed.el);
    if (ed.typed) {
      var timer = null;
      ed.typed.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(changed, 350);
      });
    }
    return { el: el, get: ed.get };
  }

  /* ------------------------------------------------------------ distributions */

  // [{v, p: fraction}] of one answer's distribution.
  function entriesOf(answer) {
    return answer.distribution.map(function (d) { return { v: d.outcome, p: frac(d.probability) }; });
  }

  function keyOf(v) { return JSON.stringify(v); }

  function sortEntries(desc, list) {
    var inner = desc.k === "opt" ? desc.of : desc;
    if (numeric(inner)) {
      list.sort(function (a, b) {
        if (a.v === null) return b.v === null ? 0 : -1;
        if (b.v === null) return 1;
        return cmp(frac(a.v), frac(b.v));
      });
    } else if (inner.k === "enum") {
      var order = D.enums[inner.of].m.map(function (p) { return p[0]; });
      list.sort(function (a, b) { return order.indexOf(a.v) - order.indexOf(b.v); });
    } else if (inner.k === "bool") {
      list.sort(function (a, b) { return (a.v === true) - (b.v === true); });
    }
    return list;
  }

  // The distribution of one field of record outcomes.
  function marginal(entries, fieldName) {
    var seen = new Map();
    entries.forEach(function (e) {
      var v = e.v === null || typeof e.v !== "object" ? null : e.v[fieldName];
      var k = keyOf(v === undefined ? null : v);
      var got = seen.get(k);
      if (got) got.p = add(got.p, e.p);
      else seen.set(k, { v: v === undefined ? null : v, p: e.p });
    });
    return Array.from(seen.values());
  }

  function meanOf(entries) {
    var total = [0n, 1n];
    for (var i = 0; i < entries.length; i++) {
      var x = entries[i].v === null ? null : frac(entries[i].v);
      if (!x) return null;
      total = add(total, mul(x, entries[i].p));
    }
    return total;
  }

  // What a column shows: its answer or its problem.
  function resolveColumn(name, input) {
    try {
      return { answer: api().resolve(name, input, { exact: true }) };
    } catch (err) {
      return { error: err && err.message ? String(err.message) : String(err) };
    }
  }

  /* ------------------------------------------------------------ drawing */

  function probCell(tag, p) {
    var td = h(tag);
    td.title = fracText(p);
    td.appendChild(document.createTextNode(pct(p)));
    return td;
  }

  function distTable(desc, list) {
    var ord = ordered(desc.k === "opt" ? desc.of : desc) && list.every(function (e) { return e.v !== null; });
    var wrap = h("div", "rb-calc-scroll");
    wrap.tabIndex = 0;  // it may scroll: reachable from the keyboard
    var table = h("table", "rb-calc-table");
    var head = h("tr");
    [T.outcome, ord ? T.exactly : T.probability].concat(ord ? [T.at_least, T.at_most] : []).forEach(function (t) {
      var th = h("th", null, t);
      th.scope = "col";
      head.appendChild(th);
    });
    var thead = h("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = h("tbody");
    var below = [0n, 1n];
    var total = list.reduce(function (s, e) { return add(s, e.p); }, [0n, 1n]);
    list.forEach(function (e) {
      var tr = h("tr");
      var th = h("th", null, label(desc, e.v));
      th.scope = "row";
      tr.appendChild(th);
      var exact = probCell("td", e.p);
      exact.appendChild(h("small", "rb-calc-frac", fracText(e.p)));
      tr.appendChild(exact);
      if (ord) {
        tr.appendChild(probCell("td", add(total, [-below[0], below[1]])));
        below = add(below, e.p);
        tr.appendChild(probCell("td", below));
      }
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    return wrap;
  }

  // Bars: columns over the values for an ordered number, rows of labelled bars otherwise.
  // scale: {max: the largest probability drawn in any column, domain: the numbers on the axis}.
  function chart(desc, list, scale, what) {
    var max = toFloat(scale.max) || 1;
    var inner = desc.k === "opt" ? desc.of : desc;
    var box = h("div", "rb-calc-chart");
    box.setAttribute("role", "img");
    box.setAttribute("aria-label", say("chart", { what: what }) + ": " + list.map(function (e) {
      return label(desc, e.v) + " " + pct(e.p);
    }).join(", "));
    if (numeric(inner) && list.every(function (e) { return e.v !== null; })) {
      box.classList.add("rb-calc-chart--cols");
      var byKey = new Map(list.map(function (e) { return [keyOf(frac(e.v).map(String)), e]; }));
      var domain = scale.domain;
      var bars = h("div", "rb-calc-bars");
      var axis = h("div", "rb-calc-axis");
      var every = domain.length <= 12 ? 1 : Math.ceil(domain.length / 12);
      var tops = domain.length <= 8;
      domain.forEach(function (x, i) {
        var e = byKey.get(keyOf(x.map(String)));
        var p = e ? e.p : [0n, 1n];
        var col = h("span", "rb-calc-col-bar");
        var bar = h("i");
        bar.style.height = (toFloat(p) / max * 100).toFixed(2) + "%";
        col.title = decimalText(x) + ": " + pct(p) + " (" + fracText(p) + ")";
        if (tops && e) col.appendChild(h("b", null, pct(p)));
        col.appendChild(bar);
        bars.appendChild(col);
        axis.appendChild(h("span", null, i % every === 0 ? decimalText(x) : ""));
      });
      box.appendChild(bars);
      box.appendChild(axis);
      return box;
    }
    box.classList.add("rb-calc-chart--rows");
    list.forEach(function (e) {
      var row = h("div", "rb-calc-bar-row");
      row.title = label(desc, e.v) + ": " + pct(e.p) + " (" + fracText(e.p) + ")";
      row.appendChild(h("span", "rb-calc-bar-label", label(desc, e.v)));
      var track = h("span", "rb-calc-bar-track");
      var bar = h("i");
      bar.style.width = (toFloat(e.p) / max * 100).toFixed(2) + "%";
      track.appendChild(bar);
      row.appendChild(track);
      row.appendChild(h("span", "rb-calc-bar-p", pct(e.p)));
      box.appendChild(row);
    });
    return box;
  }

  function meanLine(desc, list) {
    var inner = desc.k === "opt" ? desc.of : desc;
    if (!numeric(inner)) return null;
    var m = meanOf(list);
    if (!m) return null;
    var p = h("p", "rb-calc-mean");
    p.appendChild(h("strong", null, T.mean + ": "));
    var v = h("span", null, decimalText(m));
    v.title = fracText(m);
    p.appendChild(v);
    if (m[1] !== 1n) p.appendChild(h("small", "rb-calc-frac", " (" + fracText(m) + ")"));
    return p;
  }

  // The parts a result is drawn in: [{key, title, desc, list}] (one per field of a record, else one).
  function parts(result, entries) {
    if (result.k === "rec" && entries.every(function (e) { return e.v !== null && typeof e.v === "object"; })) {
      return (D.records[result.of] || []).filter(function (f) {
        return ["int", "dec", "bool", "enum", "ref"].indexOf((f[2].k === "opt" ? f[2].of : f[2]).k) >= 0;
      }).map(function (f) {
        return { key: f[0], title: f[1], desc: f[2], list: sortEntries(f[2], marginal(entries, f[0])) };
      });
    }
    return [{ key: "", title: T.result, desc: result, list: sortEntries(result, entries.slice()) }];
  }

  function scaleOf(lists) {
    var max = [0n, 1n];
    var domain = new Map();
    lists.forEach(function (list) {
      list.forEach(function (e) {
        if (cmp(e.p, max) > 0) max = e.p;
        var x = e.v === null ? null : frac(e.v);
        if (x) domain.set(keyOf(x.map(String)), x);
      });
    });
    var xs = Array.from(domain.values()).sort(cmp);
    // whole numbers: every value between the smallest and the largest, so that gaps show
    if (xs.length && xs.every(function (x) { return x[1] === 1n; }) && xs[xs.length - 1][0] - xs[0][0] <= 100n) {
      var all = [];
      for (var n = xs[0][0]; n <= xs[xs.length - 1][0]; n++) all.push([n, 1n]);
      xs = all;
    }
    return { max: max, domain: xs };
  }

  function errorBox(message) {
    var box = h("div", "rb-calc-error");
    box.setAttribute("role", "alert");
    var m = /^(.*?\.rules:\d+(?::\d+)?): error: ([\s\S]*)$/.exec(message);
    box.appendChild(h("strong", null, T.error + " "));
    box.appendChild(h("span", "rb-calc-error-text", m ? m[2] : message));
    if (m) box.appendChild(h("small", "rb-calc-error-where", " (" + m[1].replace(/^.*\//, "") + ")"));
    return box;
  }

  /* ------------------------------------------------------------ traces (as the runtime writes them) */

  var INDENT = "     ";

  function plainValue(v) {
    if (v === null || v === undefined) return "-";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number" || typeof v === "string") return String(v);
    if (Array.isArray(v)) return "[" + v.map(plainValue).join(", ") + "]";
    return "(" + Object.keys(v).map(function (k) { return k + ": " + plainValue(v[k]); }).join(", ") + ")";
  }

  function suffix(ref, src) {
    return (ref ? " [" + ref + "]" : "") + (src ? " (" + String(src).replace(/^.*\//, "") + ")" : "");
  }

  function traceEvent(e, indent, lines) {
    if (e.kind === "let") lines.push(indent + e.name + " = " + plainValue(e.value));
    else if (e.kind === "roll") lines.push(indent + (e.label || TR.roll) + ": " + e.description + " \u2192 " + plainValue(e.value));
    else traceFrame(e, indent, lines);
  }

  function traceFrame(f, indent, lines) {
    var inner = indent + INDENT;
    var named = f.name || f.title;
    if (named) {
      lines.push(indent + (f.title && f.name ? f.title + " (" + f.name + ")" : f.title || f.name) + suffix(f.ref, f.src));
      var args = Object.keys(f.args || {});
      if (args.length) {
        lines.push(inner + TR.data.replace("%(args)s", args.map(function (k) { return k + " = " + plainValue(f.args[k]); }).join(", ")));
      }
    }
    f.events.forEach(function (e) { traceEvent(e, inner, lines); });
    f.steps.forEach(function (s) {
      lines.push(indent + s.number + ". " + s.label + suffix(s.ref, s.src));
      s.events.forEach(function (e) { traceEvent(e, inner, lines); });
    });
    if (named) lines.push(indent + (f.finished ? TR.result.replace("%(value)s", plainValue(f.result)) : TR.no_result));
  }

  function traceText(trace) {
    var lines = [];
    (trace.events || []).forEach(function (e) { traceEvent(e, "", lines); });
    return lines.join("\n");
  }

  /* ------------------------------------------------------------ the address: #calc=NAME&param=value… */

  function encodeValue(v) {
    if (typeof v === "string") {
      var parsed;
      try { parsed = JSON.parse(v); } catch (e) { return encodeURIComponent(v); }
      if (parsed === undefined) return encodeURIComponent(v);
    }
    return encodeURIComponent(JSON.stringify(v));
  }

  function decodeValue(text) {
    var t;
    try { t = decodeURIComponent(text); } catch (e) { t = text; }
    try { return JSON.parse(t); } catch (e) { return t; }
  }

  function parseHash(hash) {
    var out = { name: null, a: {}, b: null };
    String(hash || "").replace(/^#/, "").split("&").forEach(function (part) {
      var eq = part.indexOf("=");
      if (eq < 0) return;
      var k = decodeURIComponent(part.slice(0, eq)), v = part.slice(eq + 1);
      if (k === "calc") out.name = decodeValue(v);
      else if (k === "vs") out.b = out.b || {};
      else if (k.indexOf("b.") === 0) { out.b = out.b || {}; out.b[k.slice(2)] = decodeValue(v); }
      else out.a[k] = decodeValue(v);
    });
    return out;
  }

  /* ------------------------------------------------------------ a calculator */

  function Calculator(el, name) {
    this.el = el;
    this.name = name;
    this.proc = D.procs[name];
    this.columns = [];
    this.renders = 0;
    this.slow = false;
  }

  Calculator.prototype.start = function (state) {
    var self = this, proc = this.proc;
    this.el.textContent = "";
    this.el.setAttribute("data-mounted", "1");
    var tools = h("div", "rb-calc-tools");
    if (proc.ex.length) {
      var pick = h("select", "rb-calc-examples");
      pick.setAttribute("aria-label", T.example);
      var first = h("option", null, T.choose_example);
      first.value = "";
      pick.appendChild(first);
      proc.ex.forEach(function (ex, i) {
        var o = h("option", null, ex[0]);
        o.value = String(i);
        pick.appendChild(o);
      });
      pick.addEventListener("change", function () {
        if (pick.value === "") return;
        self.setColumn(0, self.valuesFrom(proc.ex[Number(pick.value)][1]));
        self.update(true);
      });
      tools.appendChild(pick);
    }
    var compare = h("button", "rb-calc-button rb-calc-compare", T.compare);
    compare.type = "button";
    compare.setAttribute("aria-pressed", "false");
    compare.addEventListener("click", function () { self.setCompare(self.columns.length < 2); self.update(true); });
    var share = h("button", "rb-calc-button rb-calc-share", T.share);
    share.type = "button";
    share.addEventListener("click", function () { self.share(); });
    tools.appendChild(compare);
    tools.appendChild(share);
    this.compareButton = compare;
    this.el.appendChild(tools);
    this.shared = h("p", "rb-calc-shared");
    this.shared.hidden = true;
    this.el.appendChild(this.shared);
    this.cols = h("div", "rb-calc-cols");
    this.el.appendChild(this.cols);
    this.summary = h("p", "rb-calc-summary");
    this.summary.hidden = true;
    this.el.appendChild(this.summary);
    var base = this.defaultInput();
    var a = Object.assign({}, base, state ? state.a : {});
    this.addColumn(this.valuesFrom(a));
    if (state && state.b) {
      this.setCompare(true);
      this.setColumn(1, this.valuesFrom(Object.assign({}, a, state.b)));
    }
    this.update(false);
  };

  // The input of the procedure's first worked example that resolves (the build chose it), or none.
  Calculator.prototype.defaultInput = function () {
    var proc = this.proc;
    return proc.first !== null && proc.ex[proc.first] ? proc.ex[proc.first][1] : {};
  };

  Calculator.prototype.defaults = function () { return this.valuesFrom(this.defaultInput()); };

  // Values for every parameter: the given ones, else the schema's default, else a blank value.
  Calculator.prototype.valuesFrom = function (input) {
    var out = {};
    this.proc.p.forEach(function (p) {
      if (input && Object.prototype.hasOwnProperty.call(input, p[0])) out[p[0]] = input[p[0]];
      else if (p.length > 3) out[p[0]] = p[3];
      else out[p[0]] = p[2].k === "opt" ? null : blank(p[2]);
    });
    return out;
  };

  Calculator.prototype.addColumn = function (values) {
    var self = this;
    var col = { el: h("div", "rb-calc-col") };
    col.title = h("p", "rb-calc-col-title");
    col.title.hidden = true;
    col.el.appendChild(col.title);
    col.form = h("form", "rb-calc-form");
    col.form.addEventListener("submit", function (ev) { ev.preventDefault(); self.update(true); });
    col.form.addEventListener("change", function (ev) {
      if (ev.target && ev.target.classList && ev.target.classList.contains("rb-calc-examples")) return;
      self.update(true);
    });
    col.el.appendChild(col.form);
    col.out = h("div", "rb-calc-out");
    col.out.setAttribute("aria-live", "polite");
    col.el.appendChild(col.out);
    var rolls = h("div", "rb-calc-rolls");
    var roll = h("button", "rb-calc-button rb-calc-roll", T.roll);
    roll.type = "button";
    col.seed = 0;
    col.trace = h("div", "rb-calc-trace");
    roll.addEventListener("click", function () { self.roll(col); });
    rolls.appendChild(roll);
    rolls.appendChild(col.trace);
    col.el.appendChild(rolls);
    this.columns.push(col);
    this.cols.appendChild(col.el);
    this.fill(col, values);
    return col;
  };

  Calculator.prototype.fill = function (col, values) {
    var self = this;
    col.form.textContent = "";
    col.fields = this.proc.p.map(function (p) {
      var fe = field(p[1], p[2], values[p[0]], function () { self.update(true); });
      fe.el.setAttribute("data-param", p[0]);
      col.form.appendChild(fe.el);
      return { name: p[0], fe: fe };
    });
    if (!col.fields.length) col.form.appendChild(h("p", "rb-calc-note", T.no_params));
  };

  Calculator.prototype.setColumn = function (i, values) { this.fill(this.columns[i], values); };

  Calculator.prototype.setCompare = function (on) {
    if (on && this.columns.length < 2) {
      var values = this.read(this.columns[0]);
      this.addColumn(values.input || this.defaults());
    } else if (!on && this.columns.length > 1) {
      var b = this.columns.pop();
      b.el.remove();
    }
    var comparing = this.columns.length > 1;
    this.cols.classList.toggle("rb-calc-cols--two", comparing);
    this.compareButton.setAttribute("aria-pressed", comparing ? "true" : "false");
    this.compareButton.textContent = comparing ? T.stop_compare : T.compare;
    this.columns.forEach(function (c, i) {
      c.title.hidden = !comparing;
      c.title.textContent = say("choice", { n: String.fromCharCode(65 + i) });
    });
  };

  Calculator.prototype.read = function (col) {
    var input = {};
    try {
      col.fields.forEach(function (f) { input[f.name] = f.fe.get(); });
      return { input: input };
    } catch (err) {
      if (err instanceof Problem) return { problem: err.message };
      throw err;
    }
  };

  Calculator.prototype.update = function (byUser) {
    var self = this;
    var t0 = performance.now();
    this.el.setAttribute("data-state", "busy");
    var run = function () {
      self.draw();
      var ms = performance.now() - t0;
      self.slow = ms > 150;
      self.renders += 1;
      self.el.setAttribute("data-ms", ms.toFixed(1));
      self.el.setAttribute("data-renders", String(self.renders));
      self.el.setAttribute("data-state", "done");
      if (byUser) self.remember();
    };
    if (this.slow) {
      this.columns.forEach(function (c) {
        c.out.classList.add("rb-calc-out--busy");
        c.out.insertBefore(h("p", "rb-calc-note", T.computing), c.out.firstChild);
      });
      setTimeout(run, 20);
    } else {
      run();
    }
  };

  Calculator.prototype.draw = function () {
    var self = this, proc = this.proc;
    var results = this.columns.map(function (col) {
      var read = self.read(col);
      if (read.problem) return { error: read.problem };
      var r = resolveColumn(self.name, read.input);
      r.input = read.input;
      if (r.answer) r.parts = parts(proc.r, entriesOf(r.answer));
      return r;
    });
    // one scale per part across the columns
    var scales = {};
    results.forEach(function (r) {
      (r.parts || []).forEach(function (part) {
        (scales[part.key] = scales[part.key] || []).push(part.list);
      });
    });
    Object.keys(scales).forEach(function (k) { scales[k] = scaleOf(scales[k]); });
    results.forEach(function (r, i) {
      var out = self.columns[i].out;
      out.textContent = "";
      out.classList.remove("rb-calc-out--busy");
      if (r.error) {
        out.appendChild(errorBox(r.error));
        return;
      }
      var always = [];
      r.parts.forEach(function (part) {
        if (part.list.length === 1 && part.key !== "") {
          always.push(part.title + " " + label(part.desc, part.list[0].v));
          return;
        }
        var block = h("div", "rb-calc-part");
        block.appendChild(h("p", "rb-calc-part-title", part.title));
        var mean = meanLine(part.desc, part.list);
        block.appendChild(chart(part.desc, part.list, scales[part.key], part.title));
        if (mean) block.appendChild(mean);
        if (r.parts.length > 1) {  // a record's fields: each table folded, the charts say enough at a glance
          var more = h("details", "rb-calc-more");
          more.appendChild(h("summary", null, T.table));
          more.appendChild(distTable(part.desc, part.list));
          block.appendChild(more);
        } else {
          block.appendChild(distTable(part.desc, part.list));
        }
        out.appendChild(block);
      });
      if (always.length) {
        var p = h("p", "rb-calc-always");
        p.appendChild(h("strong", null, T.always + " "));
        p.appendChild(document.createTextNode(always.join(" · ")));
        out.insertBefore(p, out.firstChild);
      }
      if (proc.r.k === "rec") {
        var all = h("details", "rb-calc-joint");
        var n = r.answer.distribution.length;
        all.appendChild(h("summary", null, say("all_outcomes", { n: n })));
        all.addEventListener("toggle", function () {
          if (!all.open || all.querySelector("table")) return;
          all.appendChild(distTable(proc.r, entriesOf(r.answer).slice(0, 300)));
        });
        out.appendChild(all);
      }
    });
    this.costSummary(results);
  };

  // Compare: the mean per 100 points of cost, for a numeric result and a costed entry among the inputs.
  Calculator.prototype.costSummary = function (results) {
    this.summary.hidden = true;
    this.summary.textContent = "";
    var proc = this.proc;
    if (results.length < 2 || !numeric(proc.r)) return;
    var costed = proc.p.find(function (p) {
      return p[2].k === "ref" && p[2].of.some(function (c) { return D.catalogs[c] && D.catalogs[c].cost; });
    });
    if (!costed) return;
    var lines = results.map(function (r, i) {
      if (!r.answer || r.answer.mean === undefined) return null;
      var id = r.input[costed[0]];
      var cost = null;
      costed[2].of.forEach(function (c) { var k = D.catalogs[c].cost; if (k && k[id] && cost === null) cost = k[id]; });
      var m = frac(r.answer.mean);
      if (!cost || !m) return null;
      return String.fromCharCode(65 + i) + ": " + say("per_point", { value: decimalText(mul(m, [100n, BigInt(cost)])), cost: cost });
    });
    if (lines.some(function (l) { return l === null; })) return;
    this.summary.textContent = lines.join(" · ");
    this.summary.hidden = false;
  };

  Calculator.prototype.roll = function (col) {
    col.seed += 1;
    col.trace.textContent = "";
    var read = this.read(col);
    if (read.problem) { col.trace.appendChild(errorBox(read.problem)); return; }
    var answer;
    try {
      answer = api().resolve(this.name, read.input, { seed: col.seed, explain: true });
    } catch (err) {
      col.trace.appendChild(errorBox(err && err.message ? String(err.message) : String(err)));
      return;
    }
    var head = h("p", "rb-calc-trace-head");
    head.appendChild(h("strong", null, T.trace));
    head.appendChild(document.createTextNode(" (" + say("seed", { n: col.seed }) + "): " + label(this.proc.r, answer.result)));
    col.trace.appendChild(head);
    var text = h("pre", "rb-calc-trace-text", traceText(answer.trace || { events: [] }));
    text.tabIndex = 0;
    col.trace.appendChild(text);
  };

  Calculator.prototype.hash = function () {
    var self = this;
    var parts = ["calc=" + encodeURIComponent(this.name)];
    var a = this.read(this.columns[0]).input || {};
    this.proc.p.forEach(function (p) { if (p[0] in a) parts.push(encodeURIComponent(p[0]) + "=" + encodeValue(a[p[0]])); });
    if (this.columns.length > 1) {
      parts.push("vs=1");
      var b = self.read(this.columns[1]).input || {};
      this.proc.p.forEach(function (p) { if (p[0] in b) parts.push("b." + encodeURIComponent(p[0]) + "=" + encodeValue(b[p[0]])); });
    }
    return "#" + parts.join("&");
  };

  Calculator.prototype.remember = function () {
    try { history.replaceState(history.state, "", this.hash()); } catch (e) { /* file:// in some browsers */ }
  };

  Calculator.prototype.share = function () {
    this.remember();
    var link = location.href.split("#")[0] + this.hash();
    this.shared.textContent = "";
    var input = h("input", "rb-calc-link");
    input.type = "text";
    input.readOnly = true;
    input.value = link;
    input.setAttribute("aria-label", T.share);
    var status = h("span", "rb-calc-link-status", T.share_ready);
    status.setAttribute("role", "status");
    this.shared.appendChild(input);
    this.shared.appendChild(status);
    this.shared.hidden = false;
    input.focus();
    input.select();
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(link).then(function () { status.textContent = T.copied; }, function () {});
    }
  };

  /* ------------------------------------------------------------ mounting */

  var mounted = new WeakMap();

  // Draw the calculator of el[data-proc] (once); with a state (an address #calc=…), restore it.
  function mount(el, hash) {
    var name = el.getAttribute("data-proc");
    if (!D.procs[name]) return null;
    var state = hash ? parseHash(hash) : null;
    if (state && state.name !== name) state = null;
    var calc = mounted.get(el);
    if (calc && !state) return calc;
    calc = new Calculator(el, name);
    mounted.set(el, calc);
    calc.start(state);
    return calc;
  }

  window.rbCalculator = { mount: mount, traceText: traceText, parseHash: parseHash };

})();
