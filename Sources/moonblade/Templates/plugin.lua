-- {{name}}: a count kept in `state.count`, saved through the host's storage after every change and
-- loaded again when the host starts. Start from here: rename the items, keep the shape.
--
--   moonblade run {{name}} --dispatch {{name}}.add '{"by": 2}'
--   moonblade test {{name}}

---@type moonblade.Plugin
local plugin = {
  name = "{{name}}",
  version = 1,

  -- Updaters change the state, one at a time; an error leaves the state as it was.
  updaters = {
    -- payload: { by = 2 } (optional; 1 by default)
    add = function(state, p)
      local by = p and p.by or 1
      if math.type(by) ~= "integer" then error("by must be an integer, got " .. tostring(by)) end
      state.count = (state.count or 0) + by
    end,

    -- payload: { count = 5 }
    loaded = function(state, p)
      state.count = p.count
    end,
  },

  -- Side effects talk to the outside world through ctx.deps and dispatch items with ctx.dispatch.
  side_effects = {
    load = function(ctx)
      local saved = ctx.deps.storage.read { key = "{{name}}" }
      if saved then ctx.dispatch("{{name}}.loaded", { count = saved.count }) end
      return ctx.state().count
    end,

    save = function(ctx)
      local count = ctx.state().count
      ctx.deps.storage.write { key = "{{name}}", value = { count = count } }
      ctx.deps.log.info { message = "saved", count = count }
    end,
  },

  -- Observer rules: what to dispatch when the host starts, or after an item.
  observers = {
    { on_start = { "{{name}}.load" } },
    { on_dispatch = "{{name}}.add", dispatch = { "{{name}}.save" } },
  },
}

return plugin
