/// The Lua half of ``LuaResidentState``: drafts, read-only views and finalizing, loaded once per VM.
///
/// It is Lua, not C or Swift, because a draft's metamethods run inside the plugin's updater: in Lua
/// they stay under the guest limits and raise errors at the plugin's line with no boundary to cross.
/// The chunk returns a table of functions that Swift keeps by reference.
///
/// Model (Immer's): a draft is an empty proxy table whose record, in the weak table `REC`, holds
/// `base` (the resident table, never written), `copy` (a shallow copy made on the first write to this
/// table or below it), `changed` (keys of `copy` that may differ from `base`), `children` (the child
/// draft handed out per key, so `d.a == d.a`) and its `parent`/`key`. Writes go to `copy` and mark the
/// path up to the root. `finish` turns every modified draft into its `copy`, with child drafts
/// resolved, unmodified ones into their `base` (so an unchanged subtree keeps its identity), and
/// deep-copies tables the plugin created, so the resident tree is owned by the host. Copies keep the
/// kind marker of their table (``LuaTableKind``), so an object stays one when emptied. The chunk is
/// called with the array and object markers.
enum LuaDraftMachinery {
    static let chunkName = "moonblade/state.lua"

    static let source = #"""
local array_marker, object_marker = ...
local rawlen, next, type, rawequal, error, setmetatable, format, tostring, unpack, move, mathtype =
  rawlen, next, type, rawequal, error, setmetatable, string.format, tostring, table.unpack, table.move, math.type
local getmetatable = getmetatable

-- The kind markers (LuaTableKind) by what `getmetatable` shows of them: a copy keeps its table's kind.
local MARKERS = { ["moonblade.array"] = array_marker, ["moonblade.object"] = object_marker }

local function keepkind(t, copy)
  local marker = MARKERS[getmetatable(t)]
  if marker then setmetatable(copy, marker) end
  return copy
end

local REC = setmetatable({}, { __mode = "k" })    -- draft proxy -> record
local VIEW = setmetatable({}, { __mode = "k" })   -- view proxy -> resident table
local VIEWOF = setmetatable({}, { __mode = "k" }) -- resident table -> its view proxy
-- The decoding cache's identities (LuaDecodingCache): table -> id, and id -> table.
local IDS = setmetatable({}, { __mode = "k" })
local TABLES = setmetatable({}, { __mode = "v" })
-- Resident tables known to be exactly the sequence 1..n, with n: they are copied in one C call
-- instead of a Lua loop over every key.
local SEQ = setmetatable({}, { __mode = "k" })
-- Up to this length a sequence is copied through the stack (`{ unpack(t, 1, n) }`, presized).
local UNPACK_LIMIT = 200000

local Draft = { __metatable = "state draft" }
local View = { __metatable = "state view" }

local function describe(k)
  if type(k) == "string" then return format("field %q", k) end
  return "key " .. tostring(k)
end

local function newdraft(base, parent, key, session)
  local proxy = setmetatable({}, Draft)
  REC[proxy] = { base = base, parent = parent, key = key, session = session, proxy = proxy }
  return proxy
end

-- Copies t key by key, and remembers in SEQ whether it is exactly a sequence.
local function copyall(t)
  local copy, n, count, other = {}, rawlen(t), 0, false
  for k, v in next, t do
    copy[k] = v
    if mathtype(k) == "integer" and k >= 1 and k <= n then count = count + 1 else other = true end
  end
  if not other and count == n then SEQ[t] = n end
  return copy
end

local function shallowcopy(t)
  local n = SEQ[t]
  if not n then return keepkind(t, copyall(t)) end
  if n <= UNPACK_LIMIT then return keepkind(t, { unpack(t, 1, n) }) end
  return keepkind(t, move(t, 1, n, 1, {}))
end

-- Makes rec writable: a shallow copy of its base, put in place of the base in its parent's copy.
local function prepare(rec)
  rec.copy, rec.changed = shallowcopy(rec.base), {}
  local parent = rec.parent
  if parent then
    if not parent.copy then prepare(parent) end
    local key, siblings = rec.key, parent.copy
    -- A child whose key was overwritten since it was read is detached: it no longer changes its parent.
    if rawequal(siblings[key], rec.base) then
      siblings[key] = rec.proxy
      parent.changed[key] = true
    end
  end
end

-- Whether copy, made from the sequence base of n items by the changes in record, is a sequence too
-- (the same checks as LuaTableChanges.patchedArray); its length if so.
local function sequencelength(copy, n, record)
  local m, grown, shrunk = #copy, 0, 0
  for i = 1, #record do
    local k = record[i]
    if mathtype(k) ~= "integer" then return nil end
    if copy[k] ~= nil then
      if k < 1 or k > m then return nil end
      if k > n then grown = grown + 1 end
    elseif k <= m then
      return nil
    elseif k <= n then
      shrunk = shrunk + 1
    end
  end
  if grown == (m > n and m - n or 0) and shrunk == (n > m and n - m or 0) then return m end
  return nil
end

local function index(proxy, k)
  local rec = REC[proxy]
  local v = (rec.copy or rec.base)[k]
  if type(v) ~= "table" or REC[v] or VIEW[v] then return v end
  local fresh = rec.session.fresh
  if fresh and fresh[v] then return v end
  local children = rec.children
  if children then
    local child = children[k]
    if child and rawequal(REC[child].base, v) then return child end
  else
    children = {}
    rec.children = children
  end
  local child = newdraft(v, rec, k, rec.session)
  children[k] = child
  return child
end

Draft.__index = index

Draft.__newindex = function(proxy, k, v)
  local rec = REC[proxy]
  local session = rec.session
  if not session.live then error("this state draft is no longer writable: its updater has returned", 2) end
  if k == nil then error("index is nil", 2) elseif k ~= k then error("index is NaN", 2) end
  local copy = rec.copy
  if not copy then
    if rawequal(rec.base[k], v) then return end
    prepare(rec)
    copy = rec.copy
  elseif rawequal(copy[k], v) then
    return
  end
  if type(v) == "table" and not REC[v] and not VIEW[v] then
    local fresh = session.fresh
    if not fresh then
      fresh = {}
      session.fresh = fresh
    end
    fresh[v] = true
  end
  copy[k] = v
  rec.changed[k] = true
end

Draft.__len = function(proxy)
  local rec = REC[proxy]
  return #(rec.copy or rec.base)
end

-- Walks the table the draft reads from when the loop starts, yielding current values (child drafts
-- for tables) and skipping fields set to nil during the loop.
Draft.__pairs = function(proxy)
  local rec = REC[proxy]
  local source = rec.copy or rec.base
  return function(_, k)
    local key = next(source, k)
    while key ~= nil do
      local v = index(proxy, key)
      if v ~= nil then return key, v end
      key = next(source, key)
    end
    return nil
  end, proxy, nil
end

local function view(t)
  local proxy = VIEWOF[t]
  if proxy then return proxy end
  proxy = setmetatable({}, View)
  VIEW[proxy], VIEWOF[t] = t, proxy
  return proxy
end

View.__index = function(proxy, k)
  local v = VIEW[proxy][k]
  if type(v) == "table" then return view(v) end
  return v
end

View.__newindex = function(_, k)
  error(format("state is read-only here (%s)", describe(k)), 2)
end

View.__len = function(proxy) return #VIEW[proxy] end

View.__pairs = function(proxy)
  local t = VIEW[proxy]
  return function(_, k)
    local key, v = next(t, k)
    if type(v) == "table" then v = view(v) end
    return key, v
  end, proxy, nil
end

local resolve
-- What one `finish` builds (it runs no plugin code, so it is never re-entered): the change records,
-- and the copies of plugin-built tables with those still being copied; made on first use.
local CHANGES, OWNED, BUSY

-- A table the plugin built (a payload, a returned state): copied, so the resident tree is the host's.
local function own(t)
  if not OWNED then OWNED, BUSY = {}, {} end
  local owned = OWNED[t]
  if owned then
    if BUSY[t] then error("the new state contains a table that contains itself (a cycle)", 0) end
    return owned
  end
  owned = keepkind(t, {})
  OWNED[t], BUSY[t] = owned, true
  -- rawlen: a plugin's `__len` must not run here (finish runs no plugin code).
  local n, count, other = rawlen(t), 0, false
  for k, v in next, t do
    owned[resolve(k)] = resolve(v)
    if mathtype(k) == "integer" and k >= 1 and k <= n then count = count + 1 else other = true end
  end
  if not other and count == n then SEQ[owned] = n end
  BUSY[t] = nil
  return owned
end

local function finalize(rec)
  local final = rec.final
  if final then return final end
  local copy = rec.copy
  if not copy then
    rec.final = rec.base
    return rec.base
  end
  if rec.busy then error("the new state contains a table that contains itself (a cycle)", 0) end
  rec.busy = true
  local base, record = rec.base, nil
  for k in next, rec.changed do
    local v = resolve(copy[k])
    copy[k] = v
    if not rawequal(v, base[k]) then
      if record then record[#record + 1] = k else record = { base = base, k } end
    end
  end
  rec.busy = nil
  final = record and copy or base
  if record then
    if not CHANGES then CHANGES = {} end
    CHANGES[copy] = record
    local n = SEQ[base]
    if n then SEQ[copy] = sequencelength(copy, n, record) end
  end
  rec.final = final
  return final
end

resolve = function(v)
  if type(v) ~= "table" then return v end
  local rec = REC[v]
  if rec then return finalize(rec) end
  local viewed = VIEW[v]
  if viewed then return viewed end
  return own(v)
end

local M = { ids = IDS, tables = TABLES }

-- Starts a draft of `root`; returns what the updater gets (the draft, or a non-table root itself)
-- and the session, which `finish` takes.
local function begin(root)
  local session = { live = true, base = root }
  if type(root) ~= "table" then return root, session end
  local proxy = newdraft(root, nil, nil, session)
  session.root = proxy
  return proxy, session
end

-- Ends the session (its drafts become read-only) and returns the new root (the updater's `result`,
-- or the draft when it is nil) and the changes: new table -> { base = base table, changed keys... },
-- nil when no table came from an older one.
local function finish(session, result)
  session.live = false
  CHANGES, OWNED, BUSY = nil, nil, nil
  local root
  if result == nil then
    root = session.root and finalize(REC[session.root]) or session.base
  else
    root = resolve(result)
  end
  local changes = CHANGES
  CHANGES, OWNED, BUSY = nil, nil, nil
  return root, changes
end


-- Runs `updater(draft, payload)` on a draft of `root` and finishes it: one call from the host per
-- dispatch. The session is kept in `running` so that, if the updater fails, `abandon` closes it.
local running
function M.apply(root, updater, payload)
  local draft, session = begin(root)
  running = session
  local result = updater(draft, payload)
  running = nil
  if result ~= nil and type(root) == "table" and type(result) ~= "table" then
    session.live = false
    return nil, nil, type(result)
  end
  return finish(session, result)
end

function M.abandon()
  if running then running.live = false end
  running = nil
end

function M.view(v)
  if type(v) == "table" then return view(v) end
  return v
end

-- For the host's readers (LuaStack.resolveStateProxy): what a proxy stands for, read raw.
M.proxies = { view = View, draft = Draft, views = VIEW, drafts = REC }

return M
"""#
}
