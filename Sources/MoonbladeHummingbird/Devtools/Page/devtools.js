// Moonblade devtools: the live dispatch log of a host behind HostRoutes, fed by its event stream.
// Plain script, no dependency: every request goes to the page's own origin, relative to the page, so
// the page works wherever the routes are mounted.
"use strict";

const TOKEN_KEY = "moonblade.devtools.token";
const MAX_ROWS = 5000;

const $ = (id) => document.getElementById(id);

/** What the page knows: the events, the state after each, the plugins, the journal. */
const model = {
  token: null,
  write: false,
  journal: false,
  events: [],          // { id, type, data, before, after, parent, depth, spans, expanded }
  byDispatch: new Map(), // the stream's dispatch id → the event
  pendingSpans: new Map(), // span trees that came before their dispatch
  nextID: 1,
  state: null,         // the state after the last event, rebuilt from the diffs
  plugins: new Map(),  // name → { version, updaters, sideEffects, failure }
  selected: null,      // { list: "log" | "journal", id }
  pausedAt: null,      // with pause on, the first event id not shown
  dropped: 0,
  journalEntries: [],
  position: null,
};

// ---- The token: taken from the address once, then kept in this tab's session only.

function takeToken() {
  const match = location.hash.match(/(?:^#|&)token=([^&]*)/);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  model.token = sessionStorage.getItem(TOKEN_KEY);
}

function authHeaders(extra = {}) {
  return model.token ? { ...extra, Authorization: "Bearer " + model.token } : extra;
}

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: authHeaders(options.headers), cache: "no-store" });
  if (response.status === 204) return { response, body: null };
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const detail = body && body.detail ? body.detail : String(body);
    const error = new Error(detail);
    error.problem = body;
    throw error;
  }
  return { response, body };
}

// ---- JSON helpers: the diffs are [path, value] pairs and [path] for a removal.

function applyPatch(state, diff) {
  let result = state;
  for (const change of diff) result = applyChange(result, change[0], 0, change.length > 1, change[1]);
  return result;
}

/** `value` with the change at `path[at...]` made, copying only the containers along the path. */
function applyChange(value, path, at, isSet, newValue) {
  if (at === path.length) return isSet ? newValue : undefined;
  const step = path[at];
  if (Array.isArray(value) && typeof step === "number") {
    const copy = value.slice();
    if (at === path.length - 1 && !isSet) copy.splice(step, 1);
    else copy[step] = applyChange(copy[step], path, at + 1, isSet, newValue);
    return copy;
  }
  const copy = value && typeof value === "object" && !Array.isArray(value) ? { ...value } : {};
  if (at === path.length - 1 && !isSet) delete copy[step];
  else copy[step] = applyChange(copy[step], path, at + 1, isSet, newValue);
  return copy;
}

function valueAt(value, path) {
  for (const step of path) {
    if (value === null || typeof value !== "object" || !(step in value)) return undefined;
    value = value[step];
  }
  return value;
}

function short(value, length = 80) {
  if (value === undefined) return "";
  const text = JSON.stringify(value);
  return text.length > length ? text.slice(0, length - 1) + "…" : text;
}

function pathText(path) {
  return path.length === 0 ? "(the state)" : path.map((step) => (typeof step === "number" ? `[${step + 1}]` : step)).join(".").replace(/\.\[/g, "[");
}

// ---- Elements.

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** A JSON value as a tree: objects and arrays fold (details/summary: keyboard-usable as they are). */
function tree(value, key, depth = 0) {
  const label = key === undefined ? null : element("span", { className: "key" }, String(key) + ": ");
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((v, i) => [i + 1, v]) : Object.entries(value);
    const kind = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    const details = element("details", { open: depth < 2 }, element("summary", {}, label, kind));
    const list = element("ul");
    for (const [childKey, child] of entries) list.append(tree(child, childKey, depth + 1));
    details.append(list);
    return element("li", {}, details);
  }
  return element("li", {}, label, element("span", { className: "t-" + (value === null ? "null" : typeof value) }, JSON.stringify(value)));
}

function showTree(container, value) {
  container.replaceChildren(value === undefined ? element("p", {}, "no state") : element("ul", {}, tree(value)));
}

function showDiff(container, diff, before) {
  if (!diff || diff.length === 0) {
    container.replaceChildren(element("p", {}, diff ? "nothing changed" : "no diff (only an applied updater has one)"));
    return;
  }
  const list = element("ul", { className: "diff" });
  for (const change of diff) {
    const path = change[0];
    const old = before === undefined ? undefined : valueAt(before, path);
    const line = element("li", { "data-path": JSON.stringify(path) }, element("span", { className: "key" }, pathText(path) + ": "));
    if (old !== undefined) line.append(element("span", { className: "before" }, short(old, 200)), " → ");
    line.append(change.length > 1 ? element("span", { className: "after" }, short(change[1], 200)) : element("em", {}, "removed"));
    list.append(line);
  }
  container.replaceChildren(list);
}

// ---- The log.

function record(type, data) {
  const event = { id: model.nextID++, type, data, time: new Date() };
  if (type === "dispatch") {
    event.before = model.state;
    if (data.diff && model.state !== null) model.state = applyPatch(model.state, data.diff);
    event.after = model.state;
    const parent = data.parent != null ? model.byDispatch.get(data.parent) : null;
    event.parent = parent ? parent.id : null;
    event.depth = parent ? parent.depth + 1 : 0;
    event.spans = data.spans || model.pendingSpans.get(data.id) || null;
    model.pendingSpans.delete(data.id);
    if (data.id != null) model.byDispatch.set(data.id, event);
  }
  model.events.push(event);
  if (model.events.length > MAX_ROWS) {
    const removed = model.events.shift();
    if (removed.data.id != null) model.byDispatch.delete(removed.data.id);
    $("log").querySelector(`[data-id="${removed.id}"]`)?.remove();
  }
  if (model.pausedAt === null && matches(event)) placeRow(event);
  updateLogStatus();
  if (!model.selected) showCurrent();
  return event;
}

/** Puts an event's row in the log: a dispatch a rule or a side effect set off goes under its parent's
 * rows (after the parent and what it set off already), any other at the end. */
function placeRow(event) {
  const list = $("log");
  const parentRow = event.parent && list.querySelector(`[data-id="${event.parent}"]`);
  if (!parentRow) { list.append(row(event)); return; }
  const parentDepth = Number(parentRow.dataset.depth || 0);
  let last = parentRow;
  while (last.nextElementSibling && Number(last.nextElementSibling.dataset.depth || 0) > parentDepth) last = last.nextElementSibling;
  last.after(row(event));
}

/** The events in the log's order: each dispatch followed by those it set off, depth first. */
function logOrder(events) {
  const children = new Map();
  const roots = [];
  const present = new Set(events.map((event) => event.id));
  for (const event of events) {
    if (event.parent && present.has(event.parent)) {
      if (!children.has(event.parent)) children.set(event.parent, []);
      children.get(event.parent).push(event);
    } else {
      roots.push(event);
    }
  }
  const ordered = [];
  const visit = (event) => { ordered.push(event); (children.get(event.id) || []).forEach(visit); };
  roots.forEach(visit);
  return ordered;
}

/** A span tree that came on its own (a side effect's, which ends after it is reported): kept with its dispatch. */
function receiveSpans(data) {
  const event = model.byDispatch.get(data.id);
  if (!event) { model.pendingSpans.set(data.id, data.spans); return; }
  event.spans = data.spans;
  refreshRow(event);
}

/** Draws an event's row again, where it is. */
function refreshRow(event) {
  const shown = $("log").querySelector(`[data-id="${event.id}"]`);
  if (shown) shown.replaceWith(row(event));
  if (model.selected && model.selected.list === "log" && model.selected.id === event.id) showEvent(event.id);
}

/** `812 ns`, `9.8 µs`, `1.25 ms`. */
function nanoseconds(value) {
  if (value === null || value === undefined) return "running";
  if (value < 1000) return `${value} ns`;
  if (value < 1e6) return `${(value / 1e3).toFixed(1)} µs`;
  return `${(value / 1e6).toFixed(2)} ms`;
}

/** A span and those under it, as nested lists: name, duration, start after the dispatch's, error. */
function spanTree(span, own) {
  const parts = [element("span", { className: "span-name" }, span.name),
    element("span", { className: "span-duration" }, nanoseconds(span.durationNanoseconds)),
    element("span", { className: "meta" }, `+${nanoseconds(span.startNanoseconds)}`)];
  if (span.dispatch !== undefined && span.dispatch !== own && model.byDispatch.has(span.dispatch)) {
    parts.push(element("span", { className: "meta" }, ` (its own row: #${model.byDispatch.get(span.dispatch).id})`));
  }
  if (span.error) parts.push(element("span", { className: "error" }, span.error));
  const item = element("li", { role: "treeitem", "aria-expanded": span.children.length ? "true" : undefined }, ...parts);
  if (span.children.length) item.append(element("ul", { role: "group" }, ...span.children.map((child) => spanTree(child, own))));
  return item;
}

/** Shows or hides a dispatch's span tree under its row. */
function toggleSpans(id, expanded) {
  const event = model.events.find((candidate) => candidate.id === id);
  if (!event || !event.spans) return;
  event.expanded = expanded === undefined ? !event.expanded : expanded;
  refreshRow(event);
}

function matches(event) {
  const filter = $("filter").value;
  if (filter === "dispatch" && event.type !== "dispatch") return false;
  if (filter === "failed" && event.data.outcome !== "failed" && event.type !== "log") return false;
  if (filter === "reload" && event.type !== "reload") return false;
  const search = $("search").value.trim().toLowerCase();
  return !search || JSON.stringify({ ...event.data, spans: undefined }).toLowerCase().includes(search);
}

function row(event) {
  const data = event.data;
  const attributes = {
    role: "option", id: "event-" + event.id, "data-id": event.id, "data-type": event.type,
    "data-item": data.item || data.plugin || undefined, "data-outcome": data.outcome || undefined,
    "aria-selected": model.selected && model.selected.list === "log" && model.selected.id === event.id ? "true" : "false",
  };
  const time = element("span", { className: "meta" }, event.time.toLocaleTimeString());
  if (event.type === "dispatch") {
    const depth = event.depth || 0;
    attributes["data-depth"] = depth;
    if (event.spans) attributes["aria-expanded"] = event.expanded ? "true" : "false";
    const item = element("span", { className: "item" }, (depth ? "↳ " : "") + itemName(data));
    item.style.marginLeft = depth * 1.25 + "rem"; // through the DOM: the page's policy allows no inline style
    const plugin = data.plugin ? `${data.plugin.name} v${data.plugin.version}` : "swift";
    const parts = [time, item, element("span", { className: "payload" }, short(data.payload, 60)),
      element("span", { className: "outcome-" + data.outcome }, data.outcome),
      element("span", { className: "meta" }, `${plugin} · ${data.durationMicroseconds} µs · ${ORIGINS[data.origin] || data.origin}`)];
    if (event.spans) {
      // Out of the tab order: the log's own keys (→ and ←) open and close it.
      const toggle = element("button", { type: "button", className: "spans-toggle", tabindex: "-1" }, event.expanded ? "▾ spans" : "▸ spans");
      toggle.addEventListener("click", (click) => { click.stopPropagation(); toggleSpans(event.id); });
      parts.push(toggle);
    }
    if (data.error) parts.push(element("span", { className: "message error" }, errorText(data.error)));
    if (event.spans && event.expanded) {
      parts.push(element("ul", { className: "spans", role: "tree", "aria-label": `spans of ${data.item}` }, spanTree(event.spans, data.id)));
    }
    return element("li", attributes, ...parts);
  }
  if (event.type === "reload") {
    const outcome = data.outcome === "failed" ? "reload failed" : data.outcome === "migrated" ? `migrated v${data.from} → v${data.version}` : `reloaded: v${data.version}`;
    const parts = [time, element("span", { className: "item" }, data.plugin), element("span", { className: "outcome-" + data.outcome }, outcome),
      element("span", { className: "meta" }, data.cause === "watcher" ? "files changed" : "asked")];
    if (data.error) {
      const running = model.plugins.get(data.plugin);
      parts.push(element("span", { className: "message error" }, errorText(data.error) + (running ? ` — v${running.version} keeps serving` : "")));
    }
    return element("li", attributes, ...parts);
  }
  if (event.type === "missed") {
    return element("li", attributes, time, element("span", { className: "error" }, `${data.count} events dropped: this page read too slowly (the host went on)`));
  }
  return element("li", attributes, time, element("span", { className: "item" }, data.plugin || "log"), element("span", { className: "message error" }, data.message));
}

/** Who dispatched an item, as the log says it. */
const ORIGINS = {
  direct: "from Swift", http: "over HTTP", command_line: "from the command line",
  rule: "by a rule", side_effect: "by a side effect", reaction: "by a reaction",
};
const TOP_LEVEL_ORIGINS = ["direct", "http", "command_line"];

/** A jump's item is the journal's Swift time-travel item: named by where it went. */
function itemName(data) {
  const jump = data.item.startsWith("TimeTravelItem") && data.payload && data.payload.target !== undefined;
  return jump ? `jump to entry ${data.payload.target}` : data.item;
}

function errorText(error) {
  return error.location && !error.message.includes(error.location) ? `${error.message} (${error.location})` : error.message;
}

function renderLog() {
  const list = $("log");
  const shown = model.events.filter((event) => (model.pausedAt === null || event.id < model.pausedAt) && matches(event));
  list.replaceChildren(...logOrder(shown).map(row));
  updateLogStatus();
}

function updateLogStatus() {
  const waiting = model.pausedAt === null ? 0 : model.events.filter((event) => event.id >= model.pausedAt).length;
  const parts = [];
  if (model.pausedAt !== null) parts.push(`Paused: ${waiting} new event${waiting === 1 ? "" : "s"} waiting.`);
  if (model.dropped) parts.push(`${model.dropped} events dropped by the server while this page was slow.`);
  $("log-status").textContent = parts.join(" ");
}

// ---- The detail pane.

function showCurrent() {
  model.selected = null;
  $("detail-title").textContent = "Current state";
  $("detail-meta").replaceChildren();
  $("detail-actions").hidden = true;
  showTree($("detail-state"), model.state === null ? undefined : model.state);
  showDiff($("detail-diff"), null);
  markSelected();
}

function meta(pairs) {
  $("detail-meta").replaceChildren(...pairs.filter(([, value]) => value !== undefined && value !== null)
    .flatMap(([name, value]) => [element("dt", {}, name), element("dd", {}, value)]));
}

function showEvent(id) {
  const event = model.events.find((candidate) => candidate.id === id);
  if (!event) return;
  model.selected = { list: "log", id };
  const data = event.data;
  $("detail-actions").hidden = true;
  if (event.type === "dispatch") {
    const parent = event.parent && model.events.find((candidate) => candidate.id === event.parent);
    $("detail-title").textContent = itemName(data);
    meta([["kind", data.kind], ["outcome", data.outcome], ["error", data.error && errorText(data.error)],
      ["plugin", data.plugin && `${data.plugin.name} v${data.plugin.version}`], ["duration", `${data.durationMicroseconds} µs`],
      ["dispatched", TOP_LEVEL_ORIGINS.includes(data.origin) ? ORIGINS[data.origin]
        : `${ORIGINS[data.origin] || data.origin}, depth ${data.cascadeDepth}` + (parent ? ` (under ${itemName(parent.data)}, row #${parent.id})` : "")],
      ["payload", short(data.payload, 400)]]);
    showTree($("detail-state"), event.after === null ? undefined : event.after);
    showDiff($("detail-diff"), data.diff || null, event.before === null ? undefined : event.before);
  } else {
    $("detail-title").textContent = event.type === "reload" ? `reload of ${data.plugin}` : event.type;
    meta(Object.entries(data).filter(([name]) => name !== "type")
      .map(([name, value]) => [name, name === "error" ? errorText(value) : typeof value === "object" ? short(value, 400) : String(value)]));
    showTree($("detail-state"), model.state === null ? undefined : model.state);
    showDiff($("detail-diff"), null);
  }
  markSelected();
}

async function showEntry(sequence) {
  model.selected = { list: "journal", id: sequence };
  markSelected();
  const entry = model.journalEntries.find((candidate) => candidate.sequence === sequence);
  try {
    const [{ body: after }, { body: before }] = await Promise.all([
      api(`journal/${sequence}/state`), sequence > 0 ? api(`journal/${sequence - 1}/state`) : Promise.resolve({ body: undefined })]);
    if (!model.selected || model.selected.list !== "journal" || model.selected.id !== sequence) return;
    $("detail-title").textContent = `Entry ${sequence}` + (entry ? `: ${entry.item}` : "");
    if (entry) {
      meta([["outcome", entry.outcome], ["error", entry.error && entry.error.message],
        ["plugin", entry.plugin && `${entry.plugin.name} v${entry.plugin.version}`], ["duration", `${entry.durationMicroseconds} µs`],
        ["jump back to", entry.target], ["payload", short(entry.payload, 400)]]);
    }
    $("detail-actions").hidden = !model.write;
    showTree($("detail-state"), after);
    showDiff($("detail-diff"), entry ? entry.diff : null, before);
  } catch (error) {
    notice(`entry ${sequence}: ${error.message}`);
  }
}

function markSelected() {
  for (const list of [$("log"), $("journal")]) {
    const name = list.id;
    let active = null;
    for (const option of list.children) {
      const id = Number(option.dataset.id);
      const selected = !!model.selected && model.selected.list === name && model.selected.id === id;
      option.setAttribute("aria-selected", selected ? "true" : "false");
      if (selected) active = option;
    }
    if (active) {
      list.setAttribute("aria-activedescendant", active.id);
      active.scrollIntoView({ block: "nearest" });
    } else {
      list.removeAttribute("aria-activedescendant");
    }
  }
}

/** Arrow keys, Home and End move through a listbox's rows; Esc goes back to the current state. */
function listKeys(list, open) {
  list.addEventListener("keydown", (event) => {
    const rows = [...list.children];
    if (rows.length === 0) return;
    const at = rows.findIndex((option) => option.getAttribute("aria-selected") === "true");
    let next = null;
    if (event.key === "ArrowDown") next = Math.min(at + 1, rows.length - 1);
    else if (event.key === "ArrowUp") next = at < 0 ? rows.length - 1 : Math.max(at - 1, 0);
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = rows.length - 1;
    else if (event.key === "Escape") { showCurrent(); event.preventDefault(); return; }
    else if ((event.key === "ArrowRight" || event.key === "ArrowLeft") && at >= 0 && rows[at].hasAttribute("aria-expanded")) {
      event.preventDefault();
      toggleSpans(Number(rows[at].dataset.id), event.key === "ArrowRight");
      return;
    }
    else return;
    event.preventDefault();
    open(Number(rows[next].dataset.id));
  });
  list.addEventListener("click", (event) => {
    const option = event.target.closest("li[data-id]");
    if (option) { list.focus(); open(Number(option.dataset.id)); }
  });
}

// ---- Plugins and the dispatch form.

async function loadPlugins() {
  const { body } = await api("plugins");
  const failures = new Map([...model.plugins].map(([name, plugin]) => [name, plugin.failure]));
  model.plugins = new Map(body.plugins.map((plugin) => [plugin.name, { ...plugin, failure: failures.get(plugin.name) || null }]));
  renderPlugins();
  const select = $("dispatch-item");
  const chosen = select.value;
  select.replaceChildren(...body.plugins.flatMap((plugin) => [
    ...plugin.updaters.map((name) => element("option", { value: name }, `${name} (updater)`)),
    ...plugin.sideEffects.map((name) => element("option", { value: name }, `${name} (side effect)`)),
  ]));
  if (chosen && [...select.options].some((option) => option.value === chosen)) select.value = chosen;
  const spec = $("spec-plugin");
  spec.replaceChildren(...body.plugins.map((plugin) => element("option", { value: plugin.name }, plugin.name)));
}

function renderPlugins() {
  $("plugins").replaceChildren(...[...model.plugins.values()].map((plugin) => element("li", { "data-plugin": plugin.name },
    element("strong", {}, plugin.name), ` v${plugin.version} `,
    element("span", { className: "meta" }, `${plugin.updaters.length} updaters, ${plugin.sideEffects.length} side effects`),
    plugin.failure ? element("span", { className: "error" }, `last reload failed: ${errorText(plugin.failure)}; v${plugin.version} keeps serving`) : null)));
}

function checkPayload() {
  const text = $("dispatch-payload").value;
  let message = "";
  if (text.trim()) {
    try { JSON.parse(text); } catch (error) { message = "not JSON: " + error.message; }
  }
  $("payload-error").textContent = message;
  $("dispatch-payload").setAttribute("aria-invalid", message ? "true" : "false");
  $("dispatch-send").disabled = !!message || !model.write;
  return !message;
}

async function dispatchFromForm(event) {
  event.preventDefault();
  if (!checkPayload()) return;
  const item = $("dispatch-item").value;
  const text = $("dispatch-payload").value.trim();
  const result = $("dispatch-result");
  result.className = "";
  try {
    const { response, body } = await api("dispatch/" + encodeURIComponent(item), {
      method: "POST", headers: { "Content-Type": "application/json" }, body: text || undefined });
    result.textContent = response.status === 204 ? `${item}: done` : `${item} returned ${short(body, 200)}`;
  } catch (error) {
    result.className = "error";
    result.textContent = error.message;
  }
}

// ---- The journal.

async function loadJournal() {
  if (!model.journal || !model.write) return;
  try {
    const { body } = await api("journal?last=200");
    model.journalEntries = body.entries;
    model.position = body.position;
    const list = $("journal");
    list.replaceChildren(...body.entries.slice().reverse().map((entry) => element("li", {
      role: "option", id: "entry-" + entry.sequence, "data-id": entry.sequence, "data-item": entry.item,
      className: entry.sequence === body.position ? "current" : undefined,
      "aria-selected": model.selected && model.selected.list === "journal" && model.selected.id === entry.sequence ? "true" : "false",
    }, element("span", { className: "meta" }, "#" + entry.sequence), element("span", { className: "item" }, entry.target !== undefined ? `jump to ${entry.target}` : entry.item),
      element("span", { className: "payload" }, short(entry.payload, 40)), element("span", { className: "outcome-" + entry.outcome }, entry.outcome),
      element("span", { className: "meta" }, `${entry.diff.length} change${entry.diff.length === 1 ? "" : "s"}`))));
  } catch (error) {
    notice("journal: " + error.message);
  }
}

async function jump() {
  if (!model.selected || model.selected.list !== "journal") return;
  const sequence = model.selected.id;
  try {
    await api(`journal/${sequence}/jump`, { method: "POST" });
    model.state = (await api("state")).body;
    await loadJournal();
    showCurrent();
    $("detail-title").textContent = `Current state (jumped to entry ${sequence})`;
  } catch (error) {
    notice(`jump to ${sequence}: ${error.message}`);
  }
}

let journalTimer = null;
function journalChanged() {
  if (!model.journal || !model.write || journalTimer) return;
  // The journal commits in the background: read it a moment after the dispatches settle.
  journalTimer = setTimeout(() => { journalTimer = null; loadJournal(); }, 300);
}

// ---- Exports.

function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = element("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function exportJSON() {
  const events = model.events.map((event) => ({ time: event.time.toISOString(), ...event.data }));
  download("moonblade-events.json", "application/json", JSON.stringify(events, null, 2) + "\n");
}

async function exportSpec() {
  const plugin = $("spec-plugin").value;
  try {
    const { body } = await api("journal/spec?plugin=" + encodeURIComponent(plugin));
    download(`${plugin}_recorded_spec.lua`, "text/x-lua", body);
  } catch (error) {
    notice(`spec of ${plugin}: ${error.message}`);
  }
}

// ---- The event stream.

function notice(text) {
  const box = $("notice");
  box.textContent = text;
  box.hidden = !text;
}

function hex(text) {
  return Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

let retryDelay = 500;
function connect() {
  const url = new URL("events", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const protocols = model.token ? ["moonblade", "moonblade.bearer." + hex(model.token)] : ["moonblade"];
  const socket = new WebSocket(url, protocols);
  let pending = null; // events that arrive while the state is being read
  socket.addEventListener("message", async (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "hello") {
      retryDelay = 500;
      setConnection("live", "live");
      pending = [];
      for (const plugin of data.plugins) if (model.plugins.has(plugin.name)) model.plugins.get(plugin.name).version = plugin.version;
      try {
        // Diffs set values at paths, so one the state read already holds changes nothing when applied again.
        model.state = (await api("state")).body;
      } catch (error) {
        notice("state: " + error.message);
      }
      const waiting = pending;
      pending = null;
      for (const queued of waiting) receive(queued);
      if (!model.selected) showCurrent();
      return;
    }
    if (pending) pending.push(data);
    else receive(data);
  });
  socket.addEventListener("close", () => {
    if (!model.write && model.tokenRequired) {
      setConnection("down", "no live log without the token");
      return;
    }
    setConnection("down", "disconnected, retrying…");
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 5000);
  });
}

function receive(data) {
  if (data.type === "spans") { receiveSpans(data); return; }
  if (data.type === "missed") {
    model.dropped += data.count;
    record("missed", data);
    // What the dropped events changed is not in the diffs: read the state again.
    api("state").then(({ body }) => { model.state = body; if (!model.selected) showCurrent(); }).catch(() => {});
    return;
  }
  if (data.type === "reload") {
    const plugin = model.plugins.get(data.plugin);
    if (data.outcome === "failed") {
      if (plugin) plugin.failure = data.error;
      renderPlugins();
    } else if (data.outcome === "succeeded" || data.outcome === "migrated") {
      if (plugin) plugin.failure = null;
      loadPlugins().catch((error) => notice("plugins: " + error.message));
    }
  }
  record(data.type, data);
  if (data.type === "dispatch") journalChanged();
}

function setConnection(kind, text) {
  const status = $("connection");
  status.className = kind;
  status.textContent = text;
}

// ---- Start.

async function start() {
  takeToken();
  listKeys($("log"), showEvent);
  listKeys($("journal"), showEntry);
  $("pause").addEventListener("click", () => {
    const paused = model.pausedAt === null;
    model.pausedAt = paused ? model.nextID : null;
    $("pause").setAttribute("aria-pressed", String(paused));
    $("pause").textContent = paused ? "Resume" : "Pause";
    renderLog();
  });
  $("filter").addEventListener("change", renderLog);
  $("search").addEventListener("input", renderLog);
  $("clear").addEventListener("click", () => { model.events = []; model.dropped = 0; showCurrent(); renderLog(); });
  $("export-json").addEventListener("click", exportJSON);
  $("export-spec").addEventListener("click", exportSpec);
  $("journal-refresh").addEventListener("click", loadJournal);
  $("jump").addEventListener("click", jump);
  $("dispatch-payload").addEventListener("input", checkPayload);
  $("dispatch-form").addEventListener("submit", dispatchFromForm);
  $("tab-state").addEventListener("click", () => selectTab("state"));
  $("tab-diff").addEventListener("click", () => selectTab("diff"));
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token-input").value);
    location.reload();
  });
  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest("input, textarea, select");
    if (event.key === "/" && !typing) { event.preventDefault(); $("search").focus(); }
  });

  try {
    const { body: access } = await api("devtools/access");
    model.write = access.write;
    model.journal = access.journal;
    model.tokenRequired = access.tokenRequired;
  } catch (error) {
    notice("access: " + error.message);
  }
  $("access-status").textContent = model.write ? "full access" : "read-only";
  $("token-form").hidden = model.write;
  $("dispatch-form").hidden = !model.write;
  $("read-only").hidden = model.write;
  $("journal-section").hidden = !(model.journal && model.write);
  checkPayload();
  try {
    await loadPlugins();
    model.state = (await api("state")).body;
  } catch (error) {
    notice(error.message);
  }
  showCurrent();
  loadJournal();
  if (model.write || !model.tokenRequired) connect();
  else setConnection("down", "no live log without the token");
}

function selectTab(name) {
  for (const tab of ["state", "diff"]) {
    $("tab-" + tab).setAttribute("aria-selected", String(tab === name));
    $("detail-" + tab).hidden = tab !== name;
  }
}

start();
