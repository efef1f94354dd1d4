/// The Lua side of the spec runner: the busted-style DSL, the assertions and the store functions,
/// run once in each spec VM before the spec file.
///
/// It is called with a table of host functions (`await`, `caller_line`, `start_dispatch`,
/// `read_state`, `set_state`, `add_stub`) and returns `{ list = …, run = … }` for the runner.
/// `dispatch` (and `set_state` once the store has started) awaits the store through the shared
/// `await` of ``LuaAwaitingCoroutine`` (boundary rule 2): `start_dispatch` (`set_state`) records the
/// work, the runner does it with the VM released and resumes the case with its outcome.
enum SpecPrelude {
    static let chunkName = "moonblade/spec.lua"

    static let source = """
        local host = ...
        local await, pcall, error, type, tostring = host.await, pcall, error, type, tostring
        local pairs, ipairs, rawget, setmetatable = pairs, ipairs, rawget, setmetatable
        local sort, concat, insert, format = table.sort, table.concat, table.insert, string.format

        -- Values as a reader wants them in a failure message: tables with sorted keys, on one line.
        local function is_sequence(t)
          local count = 0
          for _ in pairs(t) do count = count + 1 end
          return count == #t
        end

        local function is_name(key)
          return type(key) == "string" and key:match("^[%a_][%w_]*$") ~= nil
        end

        local function before(a, b)
          local ta, tb = type(a), type(b)
          if ta == tb and (ta == "number" or ta == "string") then return a < b end
          return ta < tb
        end

        local function show(value, seen)
          if type(value) == "string" then return format("%q", value) end
          if type(value) ~= "table" then return tostring(value) end
          seen = seen or {}
          if seen[value] then return "<cycle>" end
          seen[value] = true
          local parts = {}
          if is_sequence(value) then
            for _, element in ipairs(value) do parts[#parts + 1] = show(element, seen) end
          else
            local keys = {}
            for key in pairs(value) do keys[#keys + 1] = key end
            sort(keys, before)
            for _, key in ipairs(keys) do
              local shown = is_name(key) and key or "[" .. show(key, seen) .. "]"
              parts[#parts + 1] = shown .. " = " .. show(value[key], seen)
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

        local function difference(expected, actual, path)
          if type(expected) ~= "table" or type(actual) ~= "table" then
            if expected == actual then return nil end
            return path
          end
          for key, value in pairs(expected) do
            local found = difference(value, rawget(actual, key), step(path, key))
            if found then return found end
          end
          for key in pairs(actual) do
            if rawget(expected, key) == nil then return step(path, key) end
          end
          return nil
        end

        local function mismatch(what, expected, actual)
          return format("%s\\n  expected: %s\\n  actual:   %s", what, show(expected), show(actual))
        end

        -- Assertions: each raises at the spec line that called it.
        local are = {
          same = function(expected, actual)
            local path = difference(expected, actual, "")
            if path then
              local where = path == "" and "" or " at " .. path
              error(mismatch("assert.are.same: values differ" .. where, expected, actual), 2)
            end
          end,
          equal = function(expected, actual)
            if expected ~= actual then error(mismatch("assert.are.equal: values are not equal", expected, actual), 2) end
          end,
        }

        local function expect(name, wanted, matches)
          return function(value)
            if not matches(value) then error(format("assert.%s: expected %s, got %s", name, wanted, show(value)), 2) end
          end
        end

        assert = setmetatable({
          are = are,
          same = are.same,
          equal = are.equal,
          is_true = expect("is_true", "true", function(value) return value == true end),
          is_false = expect("is_false", "false", function(value) return value == false end),
          is_nil = expect("is_nil", "nil", function(value) return value == nil end),
          is_not_nil = expect("is_not_nil", "a value", function(value) return value ~= nil end),
          has_error = function(body, fragment)
            local ok, message = pcall(body)
            if ok then error("assert.has_error: expected an error, but none was raised", 2) end
            if fragment ~= nil and not tostring(message):find(fragment, 1, true) then
              error(format("assert.has_error: expected an error containing %s\\n  actual error: %s",
                show(fragment), tostring(message)), 2)
            end
          end,
        }, {
          __call = function(_, value, message, ...)
            if not value then error(message or "assertion failed!", 2) end
            return value, message, ...
          end,
        })

        -- The case tree: blocks with their hooks, cases in declaration order.
        local root = { befores = {}, afters = {} }
        local current = root
        local cases = {}

        function describe(name, body)
          local block = { name = tostring(name), parent = current, befores = {}, afters = {} }
          current = block
          local ok, message = pcall(body)
          current = block.parent
          if not ok then error(message, 0) end
        end

        function it(name, body)
          cases[#cases + 1] = { name = tostring(name), body = body, block = current, line = host.caller_line() }
        end

        function before_each(hook) current.befores[#current.befores + 1] = hook end
        function after_each(hook) current.afters[#current.afters + 1] = hook end

        -- The store of the running case.
        function dispatch(name, payload) return await(host.start_dispatch, name, payload) end

        function state() return host.read_state() end
        local function settle() end -- set_state has recorded the work already
        function set_state(value)
          if host.set_state(value) then await(settle) end
        end

        function stub(name, answer)
          local record = { calls = {} }
          host.add_stub(name, function(arguments)
            record.calls[#record.calls + 1] = arguments == nil and {} or arguments
            if answer then return answer(arguments) end
          end)
          return record
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

        -- Runs case `index` with the hooks around it (outermost first); returns true, or false and the
        -- first error. After-hooks run even when the case failed.
        local function run(index)
          local case = cases[index]
          local chain, block = {}, case.block
          while block do
            insert(chain, 1, block)
            block = block.parent
          end
          local ok, failure = true, nil
          local function attempt(body)
            local passed, message = pcall(body)
            if not passed and ok then ok, failure = false, message end
          end
          for _, each in ipairs(chain) do
            for _, hook in ipairs(each.befores) do
              if ok then attempt(hook) end
            end
          end
          if ok then attempt(case.body) end
          for level = #chain, 1, -1 do
            for _, hook in ipairs(chain[level].afters) do attempt(hook) end
          end
          if ok then return true end
          return false, type(failure) == "string" and failure or show(failure)
        end

        return { list = list, run = run }
        """
}
