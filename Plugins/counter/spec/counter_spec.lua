-- Specs for the counter plugin. Run with `swift test` (each `it` is a test case of its own).
describe("counter.increment", function()
  it("starts from nothing and adds one", function()
    dispatch("counter.increment")
    assert.are.same({ counter = 1 }, state())
  end)

  it("adds the amount it is given", function()
    set_state({ counter = 40 })
    dispatch("counter.increment", { by = 2 })
    assert.are.equal(42, state().counter)
  end)
end)

describe("counter.reset", function()
  before_each(function()
    set_state({ counter = 7 })
  end)

  it("sets the counter to zero", function()
    dispatch("counter.reset")
    assert.are.same({ counter = 0 }, state())
  end)
end)
