/// Lua defining the global `deep_copy(value)`: a table rebuilt key by key (fresh tables, rehashed), so
/// what a test reads back is what Lua code made, not the encoder's layout or a draft's.
public let luaDeepCopySource = """
    function deep_copy(value)
      if type(value) ~= "table" then return value end
      local copy = {}
      for k, v in pairs(value) do copy[k] = deep_copy(v) end
      return copy
    end
    """
