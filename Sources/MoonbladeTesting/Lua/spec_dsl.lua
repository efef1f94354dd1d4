-- The case tree: blocks with their hooks, cases in declaration order.
local function new_block(name, parent)
  return { name = name, parent = parent, befores = {}, afters = {}, setups = {}, teardowns = {} }
end
local root = new_block("", nil)
local current = root
local cases = {}
local running -- the case being run, for finally
local in_case = false -- whether a case, its hooks included, is running

-- Blocks, cases and hooks are declared when the file loads: one declared while a case runs
-- would never run (busted refuses it too), so it is an error at the line that declared it.
local function declaring(what)
  if in_case then error(what .. " cannot be called while a case runs; declare it in a describe block", 3) end
end

-- A name as text a report can hold: bytes that are not UTF-8 become U+FFFD.
local function as_text(name)
  local text, parts = tostring(name), {}
  while true do
    local length, bad = utf8.len(text)
    if length then break end
    parts[#parts + 1] = text:sub(1, bad - 1) .. "\u{FFFD}"
    text = text:sub(bad + 1)
  end
  parts[#parts + 1] = text
  return concat(parts)
end

-- A body that is not a function fails at the line that declared it, saying so: called later,
-- it failed with Lua's bare "attempt to call a nil value", placed at the file's first line.
local function needs_function(what, body)
  if type(body) ~= "function" then error(format("%s needs a function, got %s", what, show(body)), 3) end
end

local function block_function(what)
  return function(name, body)
    declaring(what)
    needs_function(what, body)
    local block = new_block(as_text(name), current)
    current = block
    local ok, message = pcall(body)
    current = block.parent
    if not ok then error(message, 0) end
  end
end
describe = block_function("describe")
context = block_function("context")

local function declare(name, body, is_pending)
  cases[#cases + 1] = {
    name = as_text(name), body = body, block = current, line = host.caller_line(), pending = is_pending,
  }
end

function it(name, body)
  declaring("it")
  if body ~= nil then needs_function("it", body) end
  declare(name, body, body == nil)
end
function pending(name)
  declaring("pending")
  declare(name, nil, true)
end

local function hook(list, name)
  return function(body)
    declaring(name)
    needs_function(name, body)
    current[list][#current[list] + 1] = body
  end
end
before_each = hook("befores", "before_each")
after_each = hook("afters", "after_each")
setup = hook("setups", "setup")
teardown = hook("teardowns", "teardown")

function finally(body)
  if not running then error("finally can only be called inside it", 2) end
  needs_function("finally", body)
  running.finallies[#running.finallies + 1] = body
end

-- Finalizers run with the count hook off, so no instruction budget can stop one: a spec's
-- `__gc` that looped hung `moonblade test` as its VM closed. Specs get no `__gc`, as plugins
-- get none. (A `__gc` put in a metatable after `setmetatable` is never called.)
_ENV.setmetatable = function(t, metatable)
  if type(metatable) == "table" and rawget(metatable, "__gc") ~= nil then
    error("setmetatable: __gc is not available to specs (a finalizer would run where no limit can stop it)", 2)
  end
  return raw_setmetatable(t, metatable)
end

-- The store of the running case.
local function from_store(start, ...)
  local ok, result = pcall(await, start, ...)
  if ok then return result end
  if type(result) == "string" then store_errors[result] = true end
  error(result, 0)
end
function dispatch(name, payload) return from_store(host.start_dispatch, name, payload) end
function post(name, payload) return from_store(host.start_post, name, payload) end
function apply_updater(state, name, payload) return from_store(host.start_apply, name, payload, state) end

local function settle() end -- set_state or settle_start has recorded the work already
function state()
  if host.settle_start() then await(settle) end
  return host.read_state()
end
function set_state(value)
  if host.set_state(value) then await(settle) end
end

-- For the runner.
local function list()
  local listed = {}
  for index, case in ipairs(cases) do
    local names, block = { case.name }, case.block
    while block ~= root do
      insert(names, 1, block.name)
      block = block.parent
    end
    listed[index] = { names = names, line = case.line }
  end
  return listed
end

-- Runs case `index` with the hooks around it (outermost first); returns "passed", "pending", or
-- "failed" and the first error. Finally, after- and teardown hooks run even when the case failed.
local function run(index)
  local case = cases[index]
  if case.pending then return "pending" end
  local chain, block = {}, case.block
  while block do
    insert(chain, 1, block)
    block = block.parent
  end
  local ok, failure = true, nil
  in_case = true
  local function attempt(body)
    local passed, message = pcall(body)
    if not passed and ok then ok, failure = false, message end
  end
  local function each(list, backwards)
    local first, last, by = 1, #chain, 1
    if backwards then first, last, by = #chain, 1, -1 end
    for level = first, last, by do
      for _, hook in ipairs(chain[level][list]) do
        if ok or backwards then attempt(hook) end
      end
    end
  end
  each("setups")
  each("befores")
  running = { finallies = {} }
  if ok then attempt(case.body) end
  for _, body in ipairs(running.finallies) do attempt(body) end
  running = nil
  each("afters", true)
  each("teardowns", true)
  in_case = false
  if ok then return "passed" end
  return "failed", type(failure) == "string" and failure or show(failure)
end

local defined = {}
for name in pairs(_G) do
  if not standard[name] then defined[#defined + 1] = name end
end
sort(defined)
return { list = list, run = run, assertions = assertion_names(), globals = defined }
