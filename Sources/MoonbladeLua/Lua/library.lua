-- moonblade/library.lua: the read-only `moonblade` library plugins see (array/object markers, null),
-- called with the two table-kind metatables and the null value (LuaStack.pushTableKindLibrary).
local array_marker, object_marker, null = ...
local setmetatable, error = setmetatable, error
local library = {
  array = function() return setmetatable({}, array_marker) end,
  object = function() return setmetatable({}, object_marker) end,
  null = null,
}
return setmetatable({}, {
  __index = library,
  __newindex = function() error("moonblade is read-only", 2) end,
  __metatable = false,
})
