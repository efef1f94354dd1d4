-- The smallest useful plugin: a counter in `state.counter`.
return {
  name = "counter",
  version = 1,

  updaters = {
    -- payload: { by = n } (optional, default 1)
    increment = function(state, payload)
      local by = payload and payload.by or 1
      state.counter = (state.counter or 0) + by
    end,

    reset = function(state)
      state.counter = 0
    end,
  },
}
