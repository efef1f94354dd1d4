-- The matcher harness's referee: runs one call on Moonblade's pattern functions and on Lua's own,
-- and says how their outcomes differ. Loaded once by matcher_fuzz.c, which passes the two string
-- libraries; returns `compare(operation, subject, pattern, third, fourth)`.
local ours, stock = ...

-- The replacements gsub takes besides strings: a table and a function whose answers depend on the captures.
local lookup = { a = "A", b = false, [""] = "<empty>", ["1"] = 1.5, x = {}, ab = "%1" }
local function replace(...)
  local first = ...
  if first == nil then return nil end
  if first == "t" then return {} end
  if first == "f" then return false end
  return select("#", ...) .. ":" .. tostring(first)
end

-- Every result of `f(...)`, or its error, as one comparable string.
local function outcome(f, ...)
  local results = table.pack(pcall(f, ...))
  if not results[1] then return "error: " .. tostring(results[2]) end
  local parts = {}
  for index = 2, results.n do
    local value = results[index]
    parts[#parts + 1] = math.type(value) or type(value) .. ":" .. tostring(value)
    if math.type(value) then parts[#parts] = parts[#parts] .. ":" .. tostring(value) end
  end
  return table.concat(parts, "|")
end

-- All the iterations of gmatch, each with its captures.
local function iterate(gmatch)
  return function(subject, pattern, init)
    local iterations = {}
    for a, b, c in gmatch(subject, pattern, init) do
      iterations[#iterations + 1] = outcome(function() return a, b, c end)
      if #iterations > 10000 then error("too many iterations") end
    end
    return table.concat(iterations, "\n")
  end
end

local operations = {
  function(library, s, p, init, plain) return library.find(s, p, init, plain) end,
  function(library, s, p, init) return library.match(s, p, init) end,
  function(library, s, p, init) return iterate(library.gmatch)(s, p, init) end,
  function(library, s, p, replacement, most) return library.gsub(s, p, replacement, most) end,
  function(library, s, p, _, most) return library.gsub(s, p, lookup, most) end,
  function(library, s, p, _, most) return library.gsub(s, p, replace, most) end,
}

-- nil when both agree (or ours stopped at its budget, where Lua's own could run for minutes); else
-- what each did.
return function(operation, subject, pattern, third, fourth)
  local run = operations[operation % #operations + 1]
  local mine = outcome(run, ours, subject, pattern, third, fourth)
  if mine:find("instruction budget", 1, true) then return nil end
  local theirs = outcome(run, stock, subject, pattern, third, fourth)
  if mine == theirs then return nil end
  return string.format("operation %d\nours:  %q\nstock: %q", operation % #operations + 1, mine, theirs)
end
