-- moonblade/side_effects.lua: the metatable of every side effect run's `ctx` (SideEffectPrelude),
-- called with the host's entry points; ctx.dispatch and ctx.deps await Swift work through `await`.
local await, start_dispatch, start_call, read_state, dependency_names, read_only = ...
local pairs = pairs

local deps = {}
for group, names in pairs(dependency_names) do
  local functions = {}
  for name, number in pairs(names) do
    functions[name] = function(arguments) return await(start_call, number, arguments) end
  end
  deps[group] = read_only(functions, "ctx.deps." .. group) -- shared by every plugin
end

local shared = {
  state = read_state,
  dispatch = function(name, payload, options) return await(start_dispatch, name, payload, options) end,
  deps = read_only(deps, "ctx.deps"),
}
return { __index = shared, __metatable = false }
