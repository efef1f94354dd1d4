/// The Lua glue that gives side effects their `ctx` and runs interceptor chains, run once per VM.
///
/// Awaiting is a yield in Lua code (boundary rule 2): a Swift start function records the work for the
/// running coroutine and returns; `await` yields; the host runs the work outside the VM and resumes the
/// coroutine with `(true, result)` or `(false, message)`.
enum Prelude {
    static let chunkName = "moonblade/prelude.lua"

    static let source = """
        local start_dispatch, start_call, read_state, finish_interception, dependency_names, read_only = ...
        local yield, error, setmetatable, pairs, ipairs, type = coroutine.yield, error, setmetatable, pairs, ipairs, type

        local function await(start, ...)
          start(...)
          local ok, result = yield()
          if ok then return result end
          error(result, 0) -- the message already names the plugin line that awaited
        end

        local deps = {}
        for group, names in pairs(dependency_names) do
          local functions = {}
          for _, name in ipairs(names) do
            functions[name] = function(arguments) return await(start_call, group, name, arguments) end
          end
          deps[group] = read_only(functions, "ctx.deps." .. group) -- shared by every plugin
        end

        local shared = {
          state = read_state,
          dispatch = function(name, payload, options) return await(start_dispatch, name, payload, options) end,
          deps = read_only(deps, "ctx.deps"),
        }
        local per_run = { __index = shared, __metatable = false }

        -- Passes `item` to interceptors[index], whose `next` passes it on, and past the last one to the
        -- store. Each `next` works once, and only while its interceptor runs.
        local function intercept(interceptors, index, item)
          local interceptor = interceptors[index]
          if interceptor == nil then return finish_interception(item) end
          local called, returned = false, false
          interceptor(item, function(passed)
            if returned then error("next was called after its interceptor returned", 2) end
            if called then error("next was called twice; an interceptor passes an item on once", 2) end
            called = true
            if passed == nil then passed = item end
            if type(passed) ~= "table" then error("next expects the item table, got a " .. type(passed), 2) end
            intercept(interceptors, index + 1, passed)
          end)
          returned = true
        end

        -- A fresh ctx per side effect run, so what one run stores in its ctx no other run sees.
        return function() return setmetatable({}, per_run) end,
          function(interceptors, item) intercept(interceptors, 1, item) end
        """
}
