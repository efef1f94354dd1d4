-- A small JSON encoder and decoder in pure Lua: the "JSON detour" the mapping benchmarks compare
-- LuaEncoder/LuaDecoder against. Objects become tables with string keys, arrays sequences, null nil.
-- Enough JSON for Codable output (no surrogate pairs in \u escapes); written for speed, not for
-- validation of hostile input.
local byte, sub, find, format = string.byte, string.sub, string.find, string.format
local concat, mathtype = table.concat, math.type

local json = {}

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local decode_value

local function skip(text, at)
  return find(text, "[^ \t\r\n]", at) or #text + 1
end

-- After an element of an object or array: true and the index past `closer`, or false and the index
-- of the next element.
local function after_element(text, at, closer)
  at = skip(text, at)
  local c = sub(text, at, at)
  if c == closer then return true, at + 1 end
  if c ~= "," then error("expected ',' or '" .. closer .. "' at " .. at) end
  return false, skip(text, at + 1)
end

local function decode_string(text, at)
  -- at: the index after the opening quote
  local stop = find(text, '["\\]', at)
  if byte(text, stop) == 34 then return sub(text, at, stop - 1), stop + 1 end
  local parts, n = {}, 0
  while true do
    stop = find(text, '["\\]', at)
    if not stop then error("unterminated string") end
    n = n + 1; parts[n] = sub(text, at, stop - 1)
    if byte(text, stop) == 34 then return concat(parts), stop + 1 end
    local kind = sub(text, stop + 1, stop + 1)
    if kind == "u" then
      n = n + 1; parts[n] = utf8.char(tonumber(sub(text, stop + 2, stop + 5), 16))
      at = stop + 6
    else
      n = n + 1; parts[n] = escapes[kind] or error("bad escape \\" .. kind)
      at = stop + 2
    end
  end
end

local function decode_object(text, at)
  local object = {}
  at = skip(text, at)
  if byte(text, at) == 125 then return object, at + 1 end
  while true do
    if byte(text, at) ~= 34 then error("expected a key at " .. at) end
    local key
    key, at = decode_string(text, at + 1)
    at = skip(text, at)
    if byte(text, at) ~= 58 then error("expected ':' at " .. at) end
    object[key], at = decode_value(text, skip(text, at + 1))
    local done
    done, at = after_element(text, at, "}")
    if done then return object, at end
  end
end

local function decode_array(text, at)
  local array, n = {}, 0
  at = skip(text, at)
  if byte(text, at) == 93 then return array, at + 1 end
  while true do
    n = n + 1
    array[n], at = decode_value(text, at)
    local done
    done, at = after_element(text, at, "]")
    if done then return array, at end
  end
end

decode_value = function(text, at)
  local c = byte(text, at)
  if c == 123 then return decode_object(text, at + 1) end
  if c == 91 then return decode_array(text, at + 1) end
  if c == 34 then return decode_string(text, at + 1) end
  if c == 116 then return true, at + 4 end
  if c == 102 then return false, at + 5 end
  if c == 110 then return nil, at + 4 end
  local _, stop = find(text, "^-?%d+%.?%d*[eE]?[-+]?%d*", at)
  if not stop then error("unexpected character at " .. at) end
  return tonumber(sub(text, at, stop)), stop + 1
end

--- Decodes the JSON text into Lua values.
function json.decode(text)
  local value = decode_value(text, skip(text, 1))
  return value
end

local named_escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function escape_character(c)
  return named_escapes[c] or format("\\u%04x", byte(c))
end

local function escape(s)
  return (s:gsub('[%c"\\]', escape_character))
end

local encode_value

local function encode_table(t, out, n)
  if t[1] ~= nil or next(t) == nil then
    n = n + 1; out[n] = "["
    for i = 1, #t do
      if i > 1 then n = n + 1; out[n] = "," end
      n = encode_value(t[i], out, n)
    end
    n = n + 1; out[n] = "]"
    return n
  end
  n = n + 1; out[n] = "{"
  local first = true
  for k, v in next, t do
    if not first then n = n + 1; out[n] = "," end
    first = false
    n = n + 1; out[n] = '"' .. escape(k) .. '":'
    n = encode_value(v, out, n)
  end
  n = n + 1; out[n] = "}"
  return n
end

encode_value = function(v, out, n)
  local kind = type(v)
  if kind == "table" then return encode_table(v, out, n) end
  n = n + 1
  if kind == "string" then
    out[n] = '"' .. escape(v) .. '"'
  elseif kind == "number" then
    out[n] = mathtype(v) == "integer" and format("%d", v) or format("%.17g", v)
  elseif kind == "boolean" then
    out[n] = v and "true" or "false"
  else
    out[n] = "null"
  end
  return n
end

--- Encodes Lua values as JSON text: tables with `t[1]` (or empty) as arrays, others as objects.
function json.encode(value)
  local out = {}
  encode_value(value, out, 0)
  return concat(out)
end

return json
