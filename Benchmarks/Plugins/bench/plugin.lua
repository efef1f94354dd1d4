-- The Lua side of the benchmarks: the smallest updaters and side effects that show the host's cost.
return {
  name = "bench",
  version = 1,

  updaters = {
    -- The Lua twin of the native `Increment`.
    increment = function(state)
      state.counter = state.counter + 1
    end,
    -- The Lua twin of the native `ToggleItem`: flips one item of a big list.
    toggle = function(state, p)
      local item = state.items[p.at]
      item.done = not item.done
    end,
    -- Always fails: the soak run's deliberate failures.
    fail = function()
      error("deliberate failure")
    end,
  },

  side_effects = {
    -- Returns at once: the cost of running a Lua side effect at all.
    noop = function(ctx, p)
      return p.n
    end,
    -- Awaits the Swift async dependency `bench.echo` once: the Lua ↔ Swift round trip.
    echo = function(ctx, p)
      return ctx.deps.bench.echo { n = p.n }
    end,
    -- Awaits `bench.echo` ten times in one run: what each await after the first adds.
    echo_ten = function(ctx, p)
      local sum = 0
      for _ = 1, 10 do
        sum = sum + ctx.deps.bench.echo { n = p.n }
      end
      return sum
    end,
    -- Awaits a nested dispatch of the Lua updater.
    relay = function(ctx)
      ctx.dispatch("bench.increment")
    end,
  },
}
