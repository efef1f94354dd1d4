-- Tables are read raw (next, rawget, rawlen), as luassert compares them: a value's __pairs,
-- __index or __len that fails or never ends replaced the failure being shown with its own.
local next, rawlen = next, rawlen

-- Values as a reader wants them in a failure message: tables with sorted keys, on one line.
local function is_sequence(t)
  local count = 0
  for _ in next, t do count = count + 1 end
  return count == rawlen(t)
end

local function is_name(key)
  return type(key) == "string" and key:match("^[%a_][%w_]*$") ~= nil
end

local function before(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == "number" or ta == "string") then return a < b end
  return ta < tb
end

-- At most this many values are shown of one value; the rest is `…`. A table that holds one
-- table twice is shown twice over, so forty levels of `{ t, t }` would be 2^40 parts: the
-- case failed on the instruction budget instead of saying what it raised or compared.
local shown_values = 10000

local function show(value, seen, room)
  if type(value) == "string" then return format("%q", value) end
  if type(value) ~= "table" then return tostring(value) end
  seen = seen or {}
  room = room or { left = shown_values }
  if seen[value] then return "<cycle>" end
  if room.left <= 0 then return "…" end
  seen[value] = true
  local parts = {}
  local function add(part)
    room.left = room.left - 1
    if room.left < 0 then parts[#parts + 1] = "…" end
    if room.left >= 0 then parts[#parts + 1] = part() end
    return room.left >= 0
  end
  if is_sequence(value) then
    for index = 1, rawlen(value) do
      if not add(function() return show(rawget(value, index), seen, room) end) then break end
    end
  else
    local keys = {}
    for key in next, value do keys[#keys + 1] = key end
    sort(keys, before)
    for _, key in ipairs(keys) do
      local more = add(function()
        local shown = is_name(key) and key or "[" .. show(key, seen, room) .. "]"
        return shown .. " = " .. show(rawget(value, key), seen, room)
      end)
      if not more then break end
    end
  end
  seen[value] = nil
  return #parts == 0 and "{}" or "{ " .. concat(parts, ", ") .. " }"
end

-- The path of the first place two values differ (deeply), nil when they are the same.
local function step(path, key)
  if is_name(key) then return path == "" and key or path .. "." .. key end
  return path .. "[" .. show(key) .. "]"
end

-- A pair of tables met again while comparing them (a cycle) counts as the same, as in luassert:
-- whatever differs is found on the first way round.
local function difference(expected, actual, path, comparing)
  if type(expected) ~= "table" or type(actual) ~= "table" then
    if expected == actual then return nil end
    return path
  end
  comparing = comparing or {}
  local partners = comparing[expected]
  if not partners then
    partners = {}
    comparing[expected] = partners
  end
  if partners[actual] then return nil end
  partners[actual] = true
  for key, value in next, expected do
    local found = difference(value, rawget(actual, key), step(path, key), comparing)
    if found then return found end
  end
  for key in next, actual do
    if rawget(expected, key) == nil then return step(path, key) end
  end
  return nil
end

local function both(expected, actual)
  return format("\n  expected: %s\n  actual:   %s", show(expected), show(actual))
end

-- What an error is once luassert has removed its `path:line: ` prefix. A store error (raised by
-- dispatch or post, recorded in `store_errors`) also loses its `item: plugin/file:line: `, so
-- a spec compares the plugin's own message.
local store_errors = {}
local function raised(body)
  local ok, message = pcall(body)
  if ok then return false end
  if type(message) == "string" then
    local from_store = store_errors[message]
    message = message:gsub("^.-:%d+: ", "", 1)
    if from_store then message = message:gsub("^.-:%d+: ", "", 1) end
  end
  return true, message
end

local function has_text(value)
  local kind = type(value)
  if kind == "string" or kind == "number" or kind == "boolean" then return true end
  local meta = getmetatable(value)
  return meta ~= nil and type(meta) == "table" and meta.__tostring ~= nil
end

-- Spies: callables that record each call as busted does (`calls[i].vals`, `returnvals[i].vals`).
local spies = setmetatable({}, { __mode = "k" })
local function make_spy(body)
  local record = { calls = {}, returnvals = {} }
  function record.clear(self)
    self.calls, self.returnvals = {}, {}
    return self
  end
  spies[record] = true
  return setmetatable(record, {
    __call = function(self, ...)
      self.calls[#self.calls + 1] = { vals = pack(...) }
      local results = pack(body(...))
      self.returnvals[#self.returnvals + 1] = { vals = results }
      return unpack(results, 1, results.n)
    end,
  })
end

local function same_list(a, b)
  if a.n ~= b.n then return false end
  for i = 1, a.n do
    if difference(a[i], b[i], "") then return false end
  end
  return true
end

local function show_list(list)
  local parts = {}
  for i = 1, list.n do parts[i] = show(list[i]) end
  return "(" .. concat(parts, ", ") .. ")"
end

local function counted(s, compare, wanted, what)
  if type(wanted) ~= "number" then return nil, what .. " needs a number of calls" end
  return compare(#s.calls, wanted), format("expected %s %d, called %d times", what, wanted, #s.calls)
end

local function called_with_in(list)
  return function(s, ...)
    local wanted, last = pack(...), nil
    for _, call in ipairs(s[list]) do
      if same_list(call.vals, wanted) then
        return true, format("a call had %s", show_list(wanted))
      end
      last = call.vals
    end
    return false, format("no call had %s; the last had %s", show_list(wanted), last and show_list(last) or "none")
  end
end

-- Each assertion: how many arguments it takes before an optional message, and its check, which
-- returns whether the claim holds and why (why not when it fails; why when `not` makes it fail),
-- or nil and a usage error. `spy = true` ones follow assert.spy(s) / assert.stub(s).
local function kind_is(name)
  return { arity = 1, check = function(value)
    return type(value) == name, format("expected a %s, got %s", name, show(value))
  end }
end

local error_assertion = { arity = 2, check = function(body, expected)
  if type(body) ~= "function" and not (getmetatable(body) or {}).__call then
    return nil, "needs a function, got " .. show(body)
  end
  local failed, message = raised(body)
  if not failed then return false, "expected an error, but none was raised" end
  if expected == nil then return true, "expected no error, got " .. show(message) end
  local ok
  if type(expected) == "string" and has_text(message) then
    ok = expected == tostring(message)
  elseif type(expected) == "number" and type(message) == "string" then
    ok = tostring(expected) == tostring(tonumber(message))
  else
    ok = difference(expected, message, "") == nil
  end
  return ok, format("the error is %s, expected %s", show(message), show(expected))
end }

local matches_assertion = { arity = 4, loose_message = true, check = function(pattern, actual, init, plain)
  if type(pattern) ~= "string" then return nil, "needs a pattern string, got " .. show(pattern) end
  if not has_text(actual) then return nil, "needs a string to match, got " .. show(actual) end
  local ok = tostring(actual):find(pattern, init, plain) ~= nil
  return ok, format("%s %s %s", show(tostring(actual)), ok and "matches" or "does not match", show(pattern))
end }

local error_matches_assertion = { arity = 4, loose_message = true, check = function(body, pattern, init, plain)
  if pattern ~= nil and type(pattern) ~= "string" then return nil, "needs a pattern string, got " .. show(pattern) end
  local failed, message = raised(body)
  if not failed then return false, "expected an error, but none was raised" end
  if message == nil and pattern == nil then return true, "an error was raised" end
  if not has_text(message) or pattern == nil then
    return false, format("the error %s does not match %s", show(message), show(pattern))
  end
  local ok = tostring(message):find(pattern, init, plain) ~= nil
  return ok, format("the error %s %s %s", show(tostring(message)), ok and "matches" or "does not match", show(pattern))
end }

local assertions = {
  same = { arity = 2, check = function(expected, actual)
    local path = difference(expected, actual, "")
    if path then return false, "values differ" .. (path == "" and "" or " at " .. path) .. both(expected, actual) end
    return true, "values are the same" .. both(expected, actual)
  end },
  equal = { arity = 2, check = function(expected, actual)
    if expected == actual then return true, "values are equal" .. both(expected, actual) end
    return false, "values are not equal" .. both(expected, actual)
  end },
  near = { arity = 3, check = function(expected, actual, tolerance)
    expected, actual, tolerance = tonumber(expected), tonumber(actual), tonumber(tolerance)
    if not (expected and actual and tolerance) then return nil, "needs three numbers: expected, actual, tolerance" end
    local ok = actual >= expected - tolerance and actual <= expected + tolerance
    return ok, format("%s is %s %s of %s", show(actual), ok and "within" or "not within", show(tolerance), show(expected))
  end },
  matches = matches_assertion,
  match = matches_assertion,
  truthy = { arity = 1, check = function(value)
    return value ~= nil and value ~= false, "expected a truthy value, got " .. show(value)
  end },
  falsy = { arity = 1, check = function(value)
    return value == nil or value == false, "expected a falsy value, got " .. show(value)
  end },
  ["true"] = { arity = 1, check = function(value) return value == true, "expected true, got " .. show(value) end },
  ["false"] = { arity = 1, check = function(value) return value == false, "expected false, got " .. show(value) end },
  ["nil"] = { arity = 1, check = function(value) return value == nil, "expected nil, got " .. show(value) end },
  boolean = kind_is("boolean"),
  number = kind_is("number"),
  string = kind_is("string"),
  table = kind_is("table"),
  ["function"] = kind_is("function"),
  error = error_assertion,
  errors = error_assertion,
  error_matches = error_matches_assertion,
  error_match = error_matches_assertion,
  called = { arity = 1, spy = true, check = function(s, times)
    if times == nil then return #s.calls > 0, format("called %d times", #s.calls) end
    return counted(s, function(count, wanted) return count == wanted end, times, "calls:")
  end },
  called_at_least = { arity = 1, spy = true, check = function(s, times)
    return counted(s, function(count, wanted) return count >= wanted end, times, "at least")
  end },
  called_at_most = { arity = 1, spy = true, check = function(s, times)
    return counted(s, function(count, wanted) return count <= wanted end, times, "at most")
  end },
  called_with = { arity = math.huge, spy = true, check = called_with_in("calls") },
  returned_with = { arity = math.huge, spy = true, check = called_with_in("returnvals") },
}

local filler = { is = true, are = true, was = true, has = true, does = true }
local negations = { ["not"] = true, no = true }

local function known(spy_ones)
  local names = {}
  for name, assertion in pairs(assertions) do
    if (assertion.spy or false) == spy_ones then names[#names + 1] = name end
  end
  sort(names)
  return concat(names, ", ")
end

-- The optional message after an assertion's arguments (for the loose ones, the first argument
-- past the second that is neither a number nor a boolean, as luassert finds it).
local function custom_message(assertion, arguments)
  if assertion.loose_message then
    for i = 3, arguments.n do
      local value = arguments[i]
      if value ~= nil and type(value) ~= "boolean" and not tonumber(value) then return tostring(value), i end
    end
    return nil
  end
  local value = arguments[assertion.arity + 1]
  if value ~= nil then return tostring(value) end
  return nil
end

local chain
local function make_check(assertion, path, negated, subject)
  return function(...)
    local arguments = pack(...)
    local message, at = custom_message(assertion, arguments)
    if at then remove(arguments, at); arguments.n = arguments.n - 1 end
    local ok, why
    if assertion.spy then
      ok, why = assertion.check(subject, unpack(arguments, 1, arguments.n))
    else
      ok, why = assertion.check(unpack(arguments, 1, arguments.n))
    end
    if ok == nil then error(path .. ": " .. why, 2) end
    if ok == negated then
      error((message and message .. "\n" or "") .. path .. ": " .. why, 2)
    end
  end
end

chain = function(path, negated, subject)
  return setmetatable({}, {
    __index = function(_, key)
      if type(key) ~= "string" then error(format("%s[%s] is no assertion", path, show(key)), 2) end
      local negate, rest = negated, {}
      for token in key:gmatch("[^_]+") do
        local word = token:lower()
        if #rest == 0 and negations[word] then
          negate = not negate
        elseif not (#rest == 0 and filler[word]) then
          rest[#rest + 1] = word
        end
      end
      local named = path .. "." .. key
      if #rest == 0 then return chain(named, negate, subject) end
      local assertion = assertions[concat(rest, "_")]
      if assertion == nil or (assertion.spy or false) ~= (subject ~= nil) then
        local listed = known(subject ~= nil)
        if assertion then
          error(format("%s: %s", named, subject and "needs a value assertion without assert.spy(s)"
            or "must follow assert.spy(s) or assert.stub(s)"), 2)
        end
        error(format("unknown assertion %s (known: %s)", named, listed), 2)
      end
      return make_check(assertion, named, negate, subject)
    end,
  })
end

local function spy_subject(name)
  return function(s)
    if not spies[s] then
      error(format("assert.%s needs a spy or stub (spy.new, spy.on, stub), got %s", name, show(s)), 2)
    end
    return chain(format("assert.%s(s)", name), false, s)
  end
end

local root = chain("assert", false, nil)
assert = setmetatable({ spy = spy_subject("spy"), stub = spy_subject("stub") }, {
  __index = getmetatable(root).__index,
  __call = function(_, value, message, ...)
    if not value then error(message or "assertion failed!", 2) end
    return value, message, ...
  end,
})

spy = {
  new = function(body)
    if body ~= nil and type(body) ~= "function" and not spies[body] then
      error("spy.new needs a function, got " .. show(body), 2)
    end
    return make_spy(body or function() end)
  end,
  on = function(target, key)
    if type(target) ~= "table" then error("spy.on needs a table and a key, got " .. show(target), 2) end
    local original = target[key]
    local s = make_spy(function(...) if original then return original(...) end end)
    s.revert = function() target[key] = original end
    target[key] = s
    return s
  end,
}

-- busted's stub(table, key, ...): answers with the values, or with :invokes(function).
local function table_stub(target, key, ...)
  local answer, values = nil, pack(...)
  local s = make_spy(function(...)
    if answer then return answer(...) end
    return unpack(values, 1, values.n)
  end)
  function s.returns(...)
    local first = ...
    values = first == s and pack(select(2, ...)) or pack(...)
    return s
  end
  function s.invokes(...)
    local first, second = ...
    answer = first == s and second or first
    return s
  end
  if type(target) == "table" then
    local original = target[key]
    s.revert = function() target[key] = original end
    target[key] = s
  end
  return s
end

-- stub("group.name", function): answers the plugin's ctx.deps.group.name and records its calls.
local function dependency_stub(name, answer)
  if answer ~= nil and type(answer) ~= "function" then
    error(format("stub(%s, …) needs a function to answer with, got %s", show(name), show(answer)), 3)
  end
  local s = make_spy(function(...) if answer then return answer(...) end end)
  host.add_stub(name, function(arguments)
    if arguments == nil then return s() end
    return s(arguments)
  end)
  return s
end

stub = setmetatable({ new = table_stub }, {
  __call = function(_, first, ...)
    local made
    if type(first) == "string" then made = dependency_stub(first, ...) else made = table_stub(first, ...) end
    return made
  end,
})

local function assertion_names()
  local names = {}
  for name in pairs(assertions) do names[#names + 1] = name end
  sort(names)
  return names
end

