/*
 * The army builder page: build, check, save, load, share and print a roster.
 *
 * Reads window.rbArmyData, set by the script the page loads before this one
 * (<script id="rb-army-data" src="assets/armies/<page>.js">, written by
 * compiler/emit/site/to_army_page.py; a script file, not fetched, so it works from
 * file://): {army (the army document, json/armies/<id>.json), schema
 * (schemas/roster.schema.json), links ({entries, troops}: id → href of the card
 * on this site), text (the interface's phrases in the rulebook's language),
 * limits (the command line's roster limits)}. Every cost, total and message comes from
 * window.rbArmyCore.validate (site/assets/army-validator.js), the port of
 * compiler/commands/roster.py: this file knows no game.
 *
 * Draws into <div id="rb-army">: the force (side, role, game size or agreed
 * points, name), the total against the budget (live), the units with the
 * quality, models, options and choices their entry allows, every error under
 * what it is about, the entries to add (search, list filter, link to each
 * card), and a print sheet (shown only when printing). A roster is saved as a
 * JSON file, loaded from one, and shared as #roster=<base64url of its JSON>.
 * Everything is built with DOM calls (textContent), never from HTML text.
 */
(function () {
  "use strict";

  const core = window.rbArmyCore;
  const DATA = window.rbArmyData;
  const root = document.getElementById("rb-army");
  if (!core || !DATA || !root) return;
  const army = DATA.army, schema = DATA.schema, T = DATA.text, L = army.labels;
  const links = DATA.links || { entries: {}, troops: {} };
  const LIMITS = DATA.limits || { bytes: 1000000, units: 1000 };  // the command line's limits (compiler/commands/roster.py)
  const entries = new Map(army.entries.map((e) => [e.id, e]));
  const has = (obj, key) => obj !== null && typeof obj === "object" && Object.prototype.hasOwnProperty.call(obj, key);
  const FRAGMENT = "#roster=";

  let roster = blank();
  let nextId = 1;
  let result = null;

  // ------------------------------------------------------------ helpers

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  const fill = (template, params) => core.fill(template, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
  const uid = (what) => `rb-army-${what}-${nextId++}`;
  const fold = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const titleOf = (items, id) => (items.find((x) => x.id === id) || { title: id }).title;

  function blank() {
    const r = { $schema: schema.$id, format: 1, rulebook: army.rulebook, content_hash: army.content_hash, army: army.id };
    if (army.sides.length) r.side = army.sides[0].id;
    if (army.roles.length) r.role = army.roles[0].id;
    if (army.budget.sizes.length) r.size = army.budget.sizes[0].id;
    else if (army.budget.agreed) r.points = Math.max(army.budget.agreed_min, 1);
    r.units = [];
    return r;
  }

  /** A new unit of `entry`: the choices the UI would offer first (a legal unit). */
  function newUnit(entry) {
    const unit = { entry: entry.id };
    if (army.quality) {
      const plain = army.quality.values.find((q) => q.percent === 0) || army.quality.values[0];
      if (plain) unit.quality = plain.id;
    }
    if (entry.models) unit.models = entry.models.min;
    const choosing = entry.composition.filter((s) => s.alternatives.length > 1);
    if (choosing.length) unit.choices = choosing.map((s) => s.alternatives[0]);
    return unit;
  }

  function announce(text) {
    live.textContent = "";
    window.setTimeout(() => { live.textContent = text; }, 30);
  }

  // ------------------------------------------------------------ the skeleton

  const live = h("p", { class: "rb-army__live", role: "status", "aria-live": "polite" });
  const nameInput = h("input", { type: "text", id: "rb-army-name", autocomplete: "off" });
  const sideSelect = h("select", { id: "rb-army-side" });
  const roleSelect = h("select", { id: "rb-army-role" });
  const budgetSelect = h("select", { id: "rb-army-budget" });
  const pointsInput = h("input", { type: "number", id: "rb-army-points", min: army.budget.agreed_min, step: 1, inputmode: "numeric" });
  const status = h("div", { class: "rb-army__status", id: "rb-army-status" });
  const problems = h("div", { class: "rb-army__problems", id: "rb-army-problems", tabindex: "-1" });
  const loadProblems = h("div", { class: "rb-army__load-problems", id: "rb-army-load-problems", role: "alert" });
  const unitList = h("ol", { class: "rb-army__units", id: "rb-army-units" });
  const emptyNote = h("p", { class: "rb-army__empty", text: T.empty });
  const search = h("input", { type: "search", id: "rb-army-search", autocomplete: "off" });
  const catalogSelect = h("select", { id: "rb-army-catalog" });
  const entryList = h("ul", { class: "rb-army__entries", id: "rb-army-entries" });
  const noMatch = h("p", { class: "rb-army__empty", text: T.no_match, hidden: true });
  const fileInput = h("input", { type: "file", id: "rb-army-file", accept: ".json,application/json", class: "rb-army__file" });
  const shareBox = h("input", { type: "text", id: "rb-army-share-url", readonly: true });
  const shareRow = h("p", { class: "rb-army__share", hidden: true }, h("label", { for: "rb-army-share-url", text: T.share_label }), shareBox);
  const sheet = h("div", { class: "rb-army-sheet", id: "rb-army-sheet" });

  function field(id, label, control, extra) {
    return h("p", { class: "rb-army__field" + (extra ? " " + extra : "") }, h("label", { for: id, text: label }), control);
  }

  for (const s of army.sides) sideSelect.append(h("option", { value: s.id, text: s.title }));
  for (const r of army.roles) roleSelect.append(h("option", { value: r.id, text: r.title }));
  const catalogs = [];
  for (const e of army.entries) if (!catalogs.some((c) => c[0] === e.catalog)) catalogs.push([e.catalog, e.catalog_title]);
  catalogSelect.append(h("option", { value: "", text: T.all_lists }));
  for (const [id, title] of catalogs) catalogSelect.append(h("option", { value: id, text: title }));

  const setup = h("section", { class: "rb-army__setup", "aria-labelledby": "rb-army-setup-title" },
    h("h2", { id: "rb-army-setup-title", text: T.force }),
    h("div", { class: "rb-army__fields" },
      army.sides.length ? field("rb-army-side", L.side, sideSelect) : null,
      army.roles.length ? field("rb-army-role", L.role, roleSelect) : null,
      field("rb-army-budget", L.size, budgetSelect),
      army.budget.agreed ? field("rb-army-points", L.points, pointsInput, "rb-army__points") : null,
      field("rb-army-name", T.name, nameInput)));

  const button = (id, text, onclick) => h("button", { type: "button", id, class: "md-button", onclick, text });
  const tools = h("div", { class: "rb-army__tools", role: "group", "aria-label": T.tools },
    button("rb-army-save", T.save, save),
    h("label", { for: "rb-army-file", class: "md-button rb-army__load", text: T.load }), fileInput,
    button("rb-army-share", T.share, share),
    button("rb-army-print", T.print, () => { renderSheet(); window.print(); }),
    button("rb-army-new", T.new_list, () => { setRoster(blank()); announce(T.cleared); }));

  const unitsSection = h("section", { class: "rb-army__list", "aria-labelledby": "rb-army-units-title" },
    h("h2", { id: "rb-army-units-title", text: T.units }), emptyNote, unitList);
  const addSection = h("section", { class: "rb-army__add", "aria-labelledby": "rb-army-add-title" },
    h("h2", { id: "rb-army-add-title", text: T.add_unit }),
    h("div", { class: "rb-army__fields" }, field("rb-army-search", T.search, search), field("rb-army-catalog", T.list, catalogSelect)),
    noMatch, entryList);

  root.textContent = "";
  root.append(setup, tools, shareRow, loadProblems, problems, unitsSection, addSection, status, live, sheet);

  // ------------------------------------------------------------ the force

  function renderSetup() {
    nameInput.value = has(roster, "name") ? roster.name : "";
    if (army.sides.length) setSelect(sideSelect, roster.side, army.sides.map((s) => s.id));
    if (army.roles.length) setSelect(roleSelect, roster.role, army.roles.map((r) => r.id));
    budgetSelect.textContent = "";
    for (const s of army.budget.sizes) {
      budgetSelect.append(h("option", { value: "size:" + s.id, text: `${s.title} (${sizePoints(s)})` }));
    }
    if (army.budget.agreed) budgetSelect.append(h("option", { value: "points", text: L.points }));
    const value = has(roster, "points") && !has(roster, "size") ? "points" : has(roster, "size") ? "size:" + roster.size : "";
    setSelect(budgetSelect, value, [...budgetSelect.options].map((o) => o.value), value.startsWith("size:") ? roster.size : "");
    if (army.budget.agreed) {
      pointsInput.value = has(roster, "points") ? roster.points : "";
      pointsInput.closest("p").hidden = budgetSelect.value !== "points";
    }
  }

  function sizePoints(size) {
    if (size.points !== null && typeof size.points === "object") {
      if (has(roster, "role") && has(size.points, roster.role)) return String(size.points[roster.role]);
      return army.roles.filter((r) => has(size.points, r.id)).map((r) => `${r.title} ${size.points[r.id]}`).join(" · ");
    }
    return String(size.points);
  }

  /** Select `value`; a value the list does not offer (a loaded roster) is shown as it is, and nothing as "—". */
  function setSelect(select, value, offered, shown) {
    for (const o of [...select.options]) if (o.dataset.stray) o.remove();
    if (value === undefined || value === null || value === "") {
      const o = h("option", { value: "", text: T.choose, "data-stray": "1" });
      select.prepend(o);
      select.value = "";
    } else if (!offered.includes(value)) {
      select.prepend(h("option", { value, text: `${shown !== undefined ? shown : value} ?`, "data-stray": "1" }));
      select.value = value;
    } else {
      select.value = value;
    }
  }

  nameInput.addEventListener("input", () => {
    if (nameInput.value) roster.name = nameInput.value; else delete roster.name;
    update();
  });
  sideSelect.addEventListener("change", () => { roster.side = sideSelect.value; renderEntries(); update(); });
  roleSelect.addEventListener("change", () => { roster.role = roleSelect.value; renderSetup(); update(); });
  budgetSelect.addEventListener("change", () => {
    delete roster.size; delete roster.points;
    if (budgetSelect.value === "points") {
      const size = army.budget.sizes[0];
      roster.points = Math.max(army.budget.agreed_min, size && typeof size.points === "number" ? size.points : army.budget.agreed_min);
    } else if (budgetSelect.value) {
      roster.size = budgetSelect.value.slice(5);
    }
    renderSetup(); update();
  });
  pointsInput.addEventListener("input", () => {
    const n = Number(pointsInput.value);
    if (pointsInput.value !== "" && Number.isInteger(n)) { roster.points = n; update(); }
  });

  // ------------------------------------------------------------ the entries to add

  function renderEntries() {
    entryList.textContent = "";
    for (const e of army.entries) {
      const href = links.entries[e.id];
      const name = href ? h("a", { href, text: e.name }) : h("span", { text: e.name });
      const li = h("li", { class: "rb-army__entry", "data-entry": e.id, "data-catalog": e.catalog, "data-side": e.side || "", "data-search": fold(e.name + " " + e.catalog_title + " " + e.id) },
        h("span", { class: "rb-army__entry-name" }, name, h("small", { text: e.catalog_title })),
        h("span", { class: "rb-army__entry-cost", text: String(e.cost) }),
        h("button", { type: "button", class: "md-button rb-army__add-button", "aria-label": fill(T.add_named, { name: e.name }), text: T.add,
          onclick: () => addUnit(e) }));
      entryList.append(li);
    }
    filterEntries();
  }

  function filterEntries() {
    const words = fold(search.value).split(/\s+/).filter(Boolean);
    const side = has(roster, "side") && army.sides.some((s) => s.id === roster.side) ? roster.side : null;
    let shown = 0;
    for (const li of entryList.children) {
      const ok = (!catalogSelect.value || li.dataset.catalog === catalogSelect.value)
        && (side === null || !li.dataset.side || li.dataset.side === side)
        && words.every((w) => li.dataset.search.includes(w));
      li.hidden = !ok;
      shown += ok ? 1 : 0;
    }
    noMatch.hidden = shown > 0;
  }
  search.addEventListener("input", filterEntries);
  catalogSelect.addEventListener("change", filterEntries);

  function addUnit(entry) {
    roster.units.push(newUnit(entry));
    renderUnits();
    update();
    announce(fill(T.added, { name: entry.name }));
  }

  // ------------------------------------------------------------ the units

  const unitViews = [];

  function renderUnits() {
    unitList.textContent = "";
    unitViews.length = 0;
    roster.units.forEach((unit, i) => {
      const view = renderUnit(unit, i);
      unitViews.push(view);
      unitList.append(view.li);
    });
    emptyNote.hidden = roster.units.length > 0;
  }

  function renderUnit(unit, i) {
    const entry = typeof unit.entry === "string" ? entries.get(unit.entry) : undefined;
    const view = { cost: h("span", { class: "rb-army__cost" }), detail: h("span", { class: "rb-army__cost-detail" }), errors: h("ul", { class: "rb-army__errors" }) };
    const title = entry ? entry.name : String(unit.entry);
    const href = entry ? links.entries[entry.id] : null;
    const remove = h("button", { type: "button", class: "rb-army__remove", "aria-label": fill(T.remove_named, { name: title }), title: T.remove, text: "✕",
      onclick: () => {
        roster.units.splice(i, 1); renderUnits(); update(); announce(fill(T.removed, { name: title }));
        const next = unitList.querySelector(".rb-army__remove") || search;
        next.focus();
      } });
    const head = h("div", { class: "rb-army__unit-head" },
      h("h3", { class: "rb-army__unit-title" }, href ? h("a", { href, text: title }) : h("span", { text: title }),
        entry ? h("small", { text: entry.catalog_title }) : null),
      h("span", { class: "rb-army__unit-cost" }, view.cost, view.detail), remove);
    const body = h("div", { class: "rb-army__unit-body" });
    if (entry) {
      const nameId = uid("uname");
      body.append(field(nameId, T.unit_name, textInput(nameId, unit, "name")));
      if (army.quality) body.append(qualityField(unit));
      if (entry.models) body.append(modelsField(unit, entry));
      const choices = choicesFields(unit, entry);
      if (choices) body.append(choices);
      const options = optionsField(unit, entry);
      if (options) body.append(options);
    }
    const li = h("li", { class: "rb-army__unit", id: "rb-army-unit-" + i, tabindex: "-1", "data-unit": i, "data-entry": String(unit.entry) }, head, body, view.errors);
    view.li = li;
    return view;
  }

  function textInput(id, unit, key) {
    const input = h("input", { id, type: "text", autocomplete: "off", "data-field": key });
    input.value = has(unit, key) ? unit[key] : "";
    input.addEventListener("input", () => { if (input.value) unit[key] = input.value; else delete unit[key]; update(); });
    return input;
  }

  function qualityField(unit) {
    const id = uid("quality");
    const select = h("select", { id, "data-field": "quality" });
    for (const q of army.quality.values) {
      const sign = q.percent > 0 ? "+" : q.percent < 0 ? "−" : "±";
      select.append(h("option", { value: q.id, text: `${q.title} (${sign}${Math.abs(q.percent)} %)` }));
    }
    setSelect(select, unit.quality, army.quality.values.map((q) => q.id));
    select.addEventListener("change", () => { unit.quality = select.value; if (!select.value) delete unit.quality; update(); });
    return field(id, army.quality.title, select);
  }

  function modelsField(unit, entry) {
    const id = uid("models");
    const input = h("input", { id, type: "number", min: entry.models.min, max: entry.models.max, step: 1, inputmode: "numeric", "data-field": "models" });
    input.value = has(unit, "models") ? unit.models : "";
    input.addEventListener("input", () => {
      const n = Number(input.value);
      if (input.value === "") delete unit.models; else if (Number.isInteger(n) && n >= 0) unit.models = n;
      update();
    });
    return field(id, `${L.models} (${entry.models.min}–${entry.models.max})`, input);
  }

  function choicesFields(unit, entry) {
    const choosing = entry.composition.filter((s) => s.alternatives.length > 1);
    if (!choosing.length && !has(unit, "choices")) return null;
    const box = h("div", { class: "rb-army__choices" });
    choosing.forEach((slot, k) => {
      const id = uid("choice");
      const select = h("select", { id, "data-field": "choice", "data-line": k });
      for (const t of slot.alternatives) select.append(h("option", { value: t, text: has(army.troops, t) ? army.troops[t].name : t }));
      const current = Array.isArray(unit.choices) && k < unit.choices.length ? unit.choices[k] : "";
      setSelect(select, current, slot.alternatives);
      select.addEventListener("change", () => {
        const list = Array.isArray(unit.choices) ? unit.choices : [];
        for (let n = list.length; n < k; n++) list.push(choosing[n].alternatives[0]);
        list[k] = select.value;
        unit.choices = list;
        update();
      });
      box.append(field(id, fill(T.choose_troops, { n: slot.count }), select));
    });
    return box;
  }

  function optionsField(unit, entry) {
    const allowed = entry.options.map((k) => army.options[k]);
    const ids = new Set(allowed.map((o) => o.id));
    const stray = (Array.isArray(unit.options) ? unit.options : []).filter((o) => !ids.has(o));
    if (!allowed.length && !stray.length) return null;
    const box = h("fieldset", { class: "rb-army__options" }, h("legend", { text: L.options }));
    const count = (oid) => (Array.isArray(unit.options) ? unit.options.filter((x) => x === oid).length : 0);
    const setCount = (oid, n) => {
      const rest = (unit.options || []).filter((x) => x !== oid);
      for (let c = 0; c < n; c++) rest.push(oid);
      if (rest.length) unit.options = rest; else delete unit.options;
      update();
    };
    for (const o of allowed) {
      const id = uid("option");
      const price = o.cost ? ` (+${o.cost})` : "";
      if (o.max === 1) {
        const box1 = h("input", { type: "checkbox", id, "data-option": o.id });
        box1.checked = count(o.id) > 0;
        box1.addEventListener("change", () => setCount(o.id, box1.checked ? 1 : 0));
        box.append(h("p", { class: "rb-army__option" }, box1, h("label", { for: id, text: o.title + price })));
      } else {
        const input = h("input", { type: "number", id, min: 0, max: o.max, step: 1, inputmode: "numeric", "data-option": o.id });
        input.value = count(o.id);
        input.addEventListener("input", () => {
          const n = Number(input.value);
          if (Number.isInteger(n) && n >= 0) setCount(o.id, n);
        });
        box.append(h("p", { class: "rb-army__option rb-army__option--count" }, input, h("label", { for: id, text: `${o.title}${price} (≤ ${o.max})` })));
      }
    }
    if (stray.length) {
      const list = h("ul", { class: "rb-army__stray" });
      [...new Set(stray)].forEach((oid) => {
        const known = Object.values(army.options).find((o) => o.id === oid);
        list.append(h("li", {}, h("span", { text: known ? `${known.title} (${oid})` : oid }),
          h("button", { type: "button", class: "rb-army__remove", "aria-label": fill(T.remove_named, { name: oid }), title: T.remove, text: "✕",
            onclick: () => { unit.options = unit.options.filter((x) => x !== oid); if (!unit.options.length) delete unit.options; renderUnits(); update(); } })));
      });
      box.append(h("p", { class: "rb-army__stray-title", text: T.not_offered }), list);
    }
    return box;
  }

  // ------------------------------------------------------------ results

  function errorItem(e) {
    const rule = e.rule ? `${L.rule}: ${e.rule.title}${e.rule.source ? ` (${L.source} ${e.rule.source})` : ""}` : "";
    return h("li", { class: "rb-army__error rb-army__error--" + e.severity, "data-code": e.code, "data-path": e.path },
      h("span", { class: "rb-army__message", text: e.message }),
      e.suggestion ? h("span", { class: "rb-army__hint", text: " " + fill(L.did_you_mean, { suggestion: e.suggestion }) }) : null,
      rule ? h("small", { class: "rb-army__rule", text: rule }) : null);
  }

  const UNIT_PATH = /^\$\.units\[(\d+)\]/;

  function update() {
    result = core.validate(army, roster);
    const perUnit = roster.units.map(() => []);
    const general = [];
    for (const e of result.errors.concat(result.warnings)) {
      const m = UNIT_PATH.exec(e.path);
      if (m && perUnit[Number(m[1])]) perUnit[Number(m[1])].push(e); else general.push(e);
    }
    result.units.forEach((line, i) => {
      const view = unitViews[i];
      if (!view) return;
      view.cost.textContent = `${line.cost.total}`;
      const parts = [];
      if (line.known && army.quality && line.cost.quality !== line.cost.base) parts.push(`${line.cost.base} → ${line.cost.quality}`);
      if (line.cost.options) parts.push(`+${line.cost.options}`);
      view.detail.textContent = parts.length ? ` (${parts.join(" ")})` : "";
      view.errors.textContent = "";
      perUnit[i].forEach((e) => view.errors.append(errorItem(e)));
      view.li.classList.toggle("rb-army__unit--bad", perUnit[i].some((e) => e.severity === "error"));
    });
    problems.textContent = "";
    if (general.length) {
      problems.append(h("h2", { class: "rb-army__problems-title", text: L.errors }), h("ul", { class: "rb-army__errors" }, general.map(errorItem)));
    }
    renderStatus();
    renderSheet();
  }

  // the status line: built once, its texts updated (what a screen reader or a test holds stays valid)
  const totalText = h("strong", { id: "rb-army-total" });
  const budgetText = h("strong", { id: "rb-army-budget-points" });
  const budgetPart = h("span", {}, " / ", budgetText);
  const leftText = h("span", { class: "rb-army__left" });
  const stateText = h("span", { class: "rb-army__state", id: "rb-army-state" });
  // an illegal list: the state is a button that takes the player to the first error (unit or list)
  const stateButton = h("button", { type: "button", class: "rb-army__goto", id: "rb-army-goto", onclick: gotoFirstError }, stateText);
  status.append(h("span", { class: "rb-army__total" }, h("span", { text: L.total + ": " }), totalText, budgetPart), leftText, stateButton);

  function gotoFirstError() {
    const first = result && result.errors[0];
    if (!first) return;
    const m = UNIT_PATH.exec(first.path);
    const target = (m && unitViews[Number(m[1])] && unitViews[Number(m[1])].li) || problems;
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }

  function renderStatus() {
    const budget = result.budget;
    const left = budget === null ? null : budget - result.total;
    totalText.textContent = String(result.total);
    budgetText.textContent = budget === null ? "" : String(budget);
    budgetPart.hidden = budget === null;
    leftText.hidden = left === null;
    leftText.textContent = left === null ? "" : left >= 0 ? fill(L.remaining, { remaining: left }) : fill(T.over, { n: -left });
    leftText.classList.toggle("rb-army__left--over", left !== null && left < 0);
    stateText.textContent = result.legal ? L.legal : `${L.illegal} (${L.errors}: ${result.errors.length})`;
    stateButton.disabled = result.legal;
    stateText.className = "rb-army__state rb-army__state--" + (result.legal ? "legal" : "illegal");
    status.classList.toggle("rb-army__status--bad", !result.legal);
  }

  // ------------------------------------------------------------ the print sheet

  function cardTable(card) {
    return h("table", { class: "rb-army-sheet__card" },
      h("tr", {}, card.map((c) => h("th", { text: c.title }))), h("tr", {}, card.map((c) => h("td", { text: c.value }))));
  }

  function renderSheet() {
    if (!result) return;
    sheet.textContent = "";
    const title = has(roster, "name") && roster.name ? roster.name : army.title;
    const facts = [];
    if (has(roster, "side")) facts.push([L.side, titleOf(army.sides, roster.side)]);
    if (has(roster, "role")) facts.push([L.role, titleOf(army.roles, roster.role)]);
    if (has(roster, "size")) facts.push([L.size, titleOf(army.budget.sizes, roster.size)]);
    if (has(roster, "points")) facts.push([L.points, String(roster.points)]);
    facts.push([L.total, String(result.total) + (result.budget !== null ? ` / ${result.budget}` : "")]);
    sheet.append(h("h2", { class: "rb-army-sheet__title", text: title }),
      h("p", {}, h("em", { text: army.title }), " — ", h("strong", { text: result.legal ? L.legal : L.illegal })),
      h("p", { class: "rb-army-sheet__facts" }, facts.map(([k, v], n) => h("span", {}, n ? " · " : "", h("strong", { text: k + ": " }), v))));
    const qualities = new Map(((army.quality || {}).values || []).map((q) => [q.id, q.title]));
    roster.units.forEach((unit, i) => {
      const line = result.units[i];
      const entry = entries.get(unit.entry);
      const facts2 = [];
      if (army.quality && has(unit, "quality")) facts2.push(`${army.quality.title}: ${qualities.get(unit.quality) || unit.quality}`);
      if (has(unit, "models")) facts2.push(`${L.models}: ${unit.models}`);
      const opts = line.options.map((k) => army.options[k].title);
      if (opts.length) facts2.push(`${L.options}: ${opts.join(", ")}`);
      const box = h("div", { class: "rb-army-sheet__unit" },
        h("h3", {}, h("span", { text: (unit.name ? unit.name + " — " : "") + (entry ? entry.name : String(unit.entry)) }),
          h("span", { class: "rb-army-sheet__cost", text: String(line.cost.total) })),
        facts2.length ? h("p", { text: facts2.join(" · ") }) : null,
        entry && entry.card.length ? cardTable(entry.card) : null);
      const counts = new Map();
      for (const t of line.troops) counts.set(t, (counts.get(t) || 0) + 1);
      for (const [t, n] of counts) {
        const troop = has(army.troops, t) ? army.troops[t] : { name: t, card: [] };
        box.append(h("p", { class: "rb-army-sheet__troop" }, h("strong", { text: `${n} × ${troop.name}` })), troop.card.length ? cardTable(troop.card) : null);
      }
      sheet.append(box);
    });
    const all = result.errors.concat(result.warnings);
    if (all.length) {
      sheet.append(h("h3", { text: L.errors }), h("ul", {}, all.map((e) => h("li", { text: `${e.path}: ${e.message} (${L.rule}: ${e.rule.title}, ${e.rule.source})` }))));
    }
  }

  // ------------------------------------------------------------ save, load, share

  function ordered(r) {
    const keys = ["$schema", "format", "rulebook", "content_hash", "army", "side", "role", "size", "points", "name", "units"];
    const out = {};
    for (const k of keys) if (has(r, k)) out[k] = r[k];
    for (const k of Object.keys(r)) if (!has(out, k)) out[k] = r[k];
    return out;
  }

  function save() {
    const text = JSON.stringify(ordered(roster), null, 2) + "\n";
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const base = (has(roster, "name") && roster.name ? roster.name : army.id).replace(/[^\p{L}\p{N}_-]+/gu, "-").replace(/^-+|-+$/g, "") || army.id;
    const a = h("a", { href: url, download: base + ".json", hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    announce(fill(T.saved, { file: base + ".json" }));
  }

  /** Take a roster read from a file or a link: refuse it (saying why) unless it follows the roster schema. */
  function accept(candidate, origin) {
    loadProblems.textContent = "";
    if (has(candidate, "units") && Array.isArray(candidate.units) && candidate.units.length > LIMITS.units) {
      loadProblems.append(h("p", { text: fill(T.too_many, { origin, n: candidate.units.length, max: LIMITS.units }) }));
      return false;
    }
    const found = core.schemaProblems(schema, candidate);
    if (found.length) {
      loadProblems.append(h("p", { text: fill(T.bad_format, { origin }) }),
        h("ul", {}, found.map((p) => h("li", { text: `${p.path}: ${T["schema_" + p.keyword] || p.keyword}` }))));
      return false;
    }
    if (candidate.army !== army.id) {
      loadProblems.append(h("p", { text: fill(T.other_army, { origin, army: candidate.army }) }));
      return false;
    }
    setRoster(candidate);
    announce(fill(T.loaded, { origin }));
    return true;
  }

  function setRoster(r) {
    roster = r;
    renderSetup();
    renderEntries();
    renderUnits();
    update();
  }

  fileInput.addEventListener("change", () => {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    if (file.size > LIMITS.bytes) {  // refused before it is read
      loadProblems.textContent = "";
      loadProblems.append(h("p", { text: fill(T.too_big, { origin: file.name, kb: Math.floor(LIMITS.bytes / 1000) }) }));
      fileInput.value = "";
      return;
    }
    file.text().then((text) => {
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        loadProblems.textContent = "";
        loadProblems.append(h("p", { text: fill(T.not_json, { origin: file.name, reason: err.message }) }));
        return;
      }
      accept(parsed, file.name);
    }, (err) => {
      loadProblems.textContent = "";
      loadProblems.append(h("p", { text: fill(T.not_read, { origin: file.name, reason: String(err) }) }));
    }).finally(() => { fileInput.value = ""; });
  });

  function share() {
    const url = location.href.split("#")[0] + FRAGMENT + core.encodeRoster(ordered(withoutSchema(roster)));
    try {
      history.replaceState(null, "", url);
    } catch (err) {
      // some browsers refuse to rewrite a file:// address; the link is in the box all the same
    }
    shareBox.value = url;
    shareRow.hidden = false;
    shareBox.focus();
    shareBox.select();
    const copied = navigator.clipboard && window.isSecureContext ? navigator.clipboard.writeText(url) : Promise.reject(new Error("no clipboard"));
    copied.then(() => announce(T.copied), () => announce(T.share_ready));
  }

  function withoutSchema(r) {
    const out = Object.assign({}, r);
    delete out.$schema;
    return out;
  }

  function fromFragment() {
    if (!location.hash.startsWith(FRAGMENT)) return false;
    if (location.hash.length > LIMITS.bytes * 2) {  // base64 of a roster over the limit: not decoded at all
      loadProblems.textContent = "";
      loadProblems.append(h("p", { text: fill(T.too_big, { origin: T.the_link, kb: Math.floor(LIMITS.bytes / 1000) }) }));
      return false;
    }
    let parsed;
    try {
      parsed = core.decodeRoster(location.hash.slice(FRAGMENT.length));
    } catch (err) {
      loadProblems.textContent = "";
      loadProblems.append(h("p", { text: fill(T.bad_link, { reason: err.message }) }));
      return false;
    }
    return accept(parsed, T.the_link);
  }
  window.addEventListener("hashchange", fromFragment);

  if (!fromFragment()) setRoster(roster);
  root.dataset.ready = "1";
})();
