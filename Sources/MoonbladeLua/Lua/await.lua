-- moonblade/await.lua: await(start, ...) calls start(...), yields, and returns what the host resumes
-- it with, or raises the (already placed) error (LuaStack.pushAwaitFunction).
local yield, error = coroutine.yield, error
return function(start, ...)
  start(...)
  local ok, result = yield()
  if ok then return result end
  error(result, 0)
end
