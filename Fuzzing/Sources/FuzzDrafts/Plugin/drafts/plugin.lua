-- The drafts harness's plugin: `run` interprets a program of reads and writes on its state (a draft);
-- `plain` interprets the same program on a plain deep copy of the state it is given. The harness
-- compares where the two end. A program is a list of { op, position, key, number }.

-- A kind marker's metatable is protected: `getmetatable` gives its name.
local object, array = getmetatable(moonblade.object()), getmetatable(moonblade.array())

local function deep_copy(value)
  if type(value) ~= "table" then return value end
  local kind = getmetatable(value)
  local copy = kind == object and moonblade.object() or kind == array and moonblade.array() or {}
  for k, v in pairs(value) do copy[k] = deep_copy(v) end
  return copy
end

-- What a read saw, in a form that does not depend on table identity or iteration order.
local function describe(value, depth)
  if type(value) ~= "table" then return (math.type(value) or type(value)) .. ":" .. tostring(value) end
  if depth > 3 then return "{...}" end
  local entries = {}
  for k, v in pairs(value) do entries[#entries + 1] = { describe(k, 4), v } end
  table.sort(entries, function(a, b) return a[1] < b[1] end)
  local parts = {}
  for _, entry in ipairs(entries) do parts[#parts + 1] = entry[1] .. "=" .. describe(entry[2], depth + 1) end
  return "{" .. table.concat(parts, ",") .. "}#" .. #value
end

-- The container at `state[key]`, made a table first if it is not one.
local function table_at(state, key)
  if type(state[key]) ~= "table" then state[key] = {} end
  return state[key]
end

local operations = {
  function(s, p, k, n) s.n = (math.type(s.n) and s.n or 0) + n end,
  function(s, p, k, n) table.insert(table_at(s, "list"), k) end,
  function(s, p, k, n) local l = table_at(s, "list"); if #l >= p then table.remove(l, p) end end,
  function(s, p, k, n) local l = table_at(s, "list"); if #l >= p - 1 then table.insert(l, p, n) end end,
  function(s, p, k, n) table_at(s, "obj")[k] = n end,
  function(s, p, k, n) table_at(s, "obj")[k] = nil end,
  function(s, p, k, n) table_at(s, "obj").inner = { x = { n } } end,
  function(s, p, k, n) local o = table_at(s, "obj"); if type(o.inner) == "table" and type(o.inner.x) == "table" then table.insert(o.inner.x, n) end end,
  function(s, p, k, n) local o = table_at(s, "obj"); for key in pairs(o) do o[key] = nil end end,
  function(s, p, k, n) s.empty_o = moonblade.object() end,
  function(s, p, k, n) s.empty_a = moonblade.array() end,
  function(s, p, k, n) s.list = {} end,
  function(s, p, k, n) local l = table_at(s, "list"); while #l > 0 do table.remove(l) end end,
  function(s, p, k, n) local l = table_at(s, "list"); l[#l + 1.0] = n end,
  function(s, p, k, n) table_at(s, "obj")[k] = s.list end,               -- one table at two keys
  function(s, p, k, n) table_at(s, "obj")[k] = 0 / 0 end,                -- JSON has no NaN: fails on both sides
  function(s, p, k, n) table_at(s, "list")[k] = 1 end,                   -- an array with a name
  function(s, p, k, n) if s.n and math.type(s.n) and s.n > p then error("halfway") end end,
  function(s, p, k, n) table.sort(table_at(s, "list"), function(a, b) return tostring(a) < tostring(b) end) end,
  function(s, p, k, n) table_at(s, "obj")[k] = { s.obj.inner, { n } } end,
  function(s, p, k, n) s[k] = s.n end,
  function(s, p, k, n) s[k] = nil end,
  function(s, p, k, n) local l = table_at(s, "list"); if #l >= p then l[p + 0.0] = k end end,
  function(s, p, k, n) pcall(function() s.n = n; table_at(s, "obj")[k] = true; error("caught") end) end,
  function(s, p, k, n) local o = table_at(s, "obj"); for key, v in pairs(o) do if math.type(v) then o[key] = v + 1 end end end,
  function(s, p, k, n) s.seen = (s.seen or "") .. describe(s[k], 0) .. ";" end,
  function(s, p, k, n) s.seen = (s.seen or "") .. describe(s, 0) .. ";" end,
  function(s, p, k, n) local moved = s.obj; s.obj = s.list; s.list = moved end,
  function(s, p, k, n) table_at(s, "deep")[k] = { { { n, k } } } end,
  function(s, p, k, n) local d = table_at(s, "deep"); for _, v in pairs(d) do if type(v) == "table" and type(v[1]) == "table" and p <= #v[1] + 1 then v[1][p] = n end end end,
}

-- Runs `program` on `state`; a `return` operation (op 0) ends it with a new table built from the state.
local function interpret(state, program)
  for _, step in ipairs(program) do
    local op, p, k, n = step[1], step[2], step[3], step[4]
    if op == 0 then return { n = state.n, list = state.list, obj = state.obj, seen = state.seen } end
    operations[(op - 1) % #operations + 1](state, p, k, n)
  end
end

return {
  name = "drafts",
  updaters = {
    reset = function(_, initial) return initial end,
    run = function(state, program) return interpret(state, program) end,
  },
  side_effects = {
    plain = function(_, p)
      local copy = deep_copy(p.state)
      return interpret(copy, p.program) or copy
    end,
  },
}
