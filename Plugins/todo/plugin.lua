-- A todo list in `state.todos`, persisted through the host's `storage` dependency (saved on change).
local function require_title(payload)
  if type(payload) ~= "table" or type(payload.title) ~= "string" or payload.title == "" then
    error("todo.add needs a payload { title = <non-empty string> }", 2)
  end
  return payload.title
end

return {
  name = "todo",
  version = 1,

  updaters = {
    add = function(state, payload)
      local title = require_title(payload)
      state.todos = state.todos or {}
      state.todos[#state.todos + 1] = { title = title, done = false }
    end,

    -- payload: { index = n }, 1-based as Lua counts
    toggle = function(state, payload)
      local todo = state.todos and state.todos[payload.index]
      if not todo then error("no todo at index " .. tostring(payload.index)) end
      todo.done = not todo.done
    end,

    replace = function(state, payload)
      state.todos = payload.todos
    end,

    clear_done = function(state)
      local kept = {}
      for _, todo in ipairs(state.todos or {}) do
        if not todo.done then kept[#kept + 1] = todo end
      end
      state.todos = kept
    end,
  },

  side_effects = {
    -- Reads the saved list, replaces the state's with it and returns how many there are.
    load = function(ctx)
      local saved = ctx.deps.storage.read { key = "todos" }
      ctx.dispatch("todo.replace", { todos = saved or {} })
      return #ctx.state().todos
    end,

    save = function(ctx)
      ctx.deps.storage.write { key = "todos", value = ctx.state().todos or {} }
    end,
  },

  observers = {
    -- Saves the list whenever a change to the state changes it.
    {
      on_state_change = function(old, new)
        local before, after = old.todos or {}, new.todos or {}
        if #before ~= #after then return true end
        for index, todo in ipairs(before) do
          if todo.title ~= after[index].title or todo.done ~= after[index].done then return true end
        end
        return false
      end,
      dispatch = { "todo.save" },
    },
  },
}
