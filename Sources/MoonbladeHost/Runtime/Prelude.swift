/// The Lua glue that gives side effects their `ctx`, run once per VM.
///
/// Awaiting is a yield in Lua code (boundary rule 2): a Swift start function records the work for the
/// running coroutine and returns; `await` yields; the host runs the work outside the VM and resumes the
/// coroutine with `(true, result)` or `(false, message)`.
enum Prelude {
    static let chunkName = "moonblade/prelude.lua"

    static let source = """
        local start_dispatch, start_call, read_state, dependency_names, read_only = ...
        local yield, error, setmetatable, pairs, ipairs = coroutine.yield, error, setmetatable, pairs, ipairs

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
          dispatch = function(name, payload) return await(start_dispatch, name, payload) end,
          deps = read_only(deps, "ctx.deps"),
        }
        local per_run = { __index = shared, __metatable = false }

        -- A fresh ctx per side effect run, so what one run stores in its ctx no other run sees.
        return function() return setmetatable({}, per_run) end
        """
}
