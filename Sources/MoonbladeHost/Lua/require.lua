-- moonblade/require.lua: a plugin's `require` (PluginModules), called with the host's module loader
-- and the plugin's environment: caches each module's value and refuses cycles.
local load_module, env = ...
local type, error, pcall = type, error, pcall
local loaded, loading = {}, {}
return function(name)
  local value = loaded[name]
  if value ~= nil then return value end
  if loading[name] then error("require(\"" .. tostring(name) .. "\"): the module requires itself", 2) end
  local body, problem = load_module(name, env)
  if not body then error(problem, 2) end
  loading[name] = true
  local ok, result = pcall(body, name)
  loading[name] = nil
  if not ok then error(result, 0) end
  if result == nil then result = true end
  loaded[name] = result
  return result
end
