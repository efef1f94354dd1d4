-- moonblade/interceptors.lua: the plugins' Lua interceptors as one chain (LuaInterceptorChain),
-- called with the host's `hand_on(item)` and `make_next`.
local hand_on, make_next = ...

-- Passes `item` to interceptors[index], whose `next` passes it on, and past the last one to the
-- store. Each `next` works once, and only while its interceptor runs: closing its state (as the
-- interceptor returns or raises) ends it.
local function intercept(interceptors, index, item)
  local interceptor = interceptors[index]
  if interceptor == nil then return hand_on(item) end
  local next, state <close> = make_next(intercept, interceptors, index, item)
  interceptor(item, next)
end

return function(interceptors, item) intercept(interceptors, 1, item) end
