-- The first part of moonblade/spec.lua (SpecPrelude): the host functions and the standard library
-- as locals; spec_assertions.lua and spec_dsl.lua follow it in the same chunk.
local host = ...
local await, pcall, error, type, tostring, tonumber = host.await, pcall, error, type, tostring, tonumber
local pairs, ipairs, rawget, setmetatable, getmetatable = pairs, ipairs, rawget, setmetatable, getmetatable
local raw_setmetatable = setmetatable
local select, pack, unpack, math = select, table.pack, table.unpack, math
local sort, concat, insert, remove, format = table.sort, table.concat, table.insert, table.remove, string.format
local standard = {} -- the globals before the prelude, to list the ones it defines
for name in pairs(_G) do standard[name] = true end

