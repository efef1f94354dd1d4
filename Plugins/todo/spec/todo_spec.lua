-- Specs for the todo plugin: run with `moonblade test Plugins/todo` or `swift test`.

describe("todo", function()
  local saved -- what the stubbed storage holds, by key

  before_each(function()
    set_state({ todos = {} })
    saved = {}
    stub("storage.read", function(args) return saved[args.key] end)
    stub("storage.write", function(args) saved[args.key] = args.value end)
  end)

  describe("add", function()
    it("appends an open todo", function()
      dispatch("todo.add", { title = "milk" })
      dispatch("todo.add", { title = "bread" })
      assert.are.same({ { title = "milk", done = false }, { title = "bread", done = false } }, state().todos)
    end)

    it("saves the list through the observer, once per change", function()
      local writes = stub("storage.write", function(args) saved[args.key] = args.value end)
      dispatch("todo.add", { title = "milk" })
      assert.are.same({ { title = "milk", done = false } }, saved.todos)
      dispatch("todo.toggle", { index = 1 })
      assert.are.equal(2, #writes.calls)
      assert.is_true(saved.todos[1].done)
    end)

    it("refuses a missing or empty title", function()
      assert.has_error(function() dispatch("todo.add", {}) end, "todo.add needs a payload { title = <non-empty string> }")
      assert.error_matches(function() dispatch("todo.add", { title = "" }) end, "non-empty string", nil, true)
      assert.are.same({ todos = {} }, state())
    end)
  end)

  describe("toggle", function()
    it("flips a todo between open and done", function()
      dispatch("todo.add", { title = "milk" })
      dispatch("todo.toggle", { index = 1 })
      assert.is_true(state().todos[1].done)
      dispatch("todo.toggle", { index = 1 })
      assert.are.equal(false, state().todos[1].done)
    end)

    it("refuses an index with no todo", function()
      assert.has_error(function() dispatch("todo.toggle", { index = 3 }) end, "no todo at index 3")
    end)
  end)

  it("clear_done keeps only the open todos", function()
    set_state({ todos = { { title = "a", done = true }, { title = "b", done = false }, { title = "c", done = true } } })
    dispatch("todo.clear_done")
    assert.are.same({ { title = "b", done = false } }, state().todos)
  end)

  describe("load", function()
    it("replaces the list with the saved one and returns how many there are", function()
      saved.todos = { { title = "saved", done = true } }
      assert.are.equal(1, dispatch("todo.load"))
      assert.are.same({ { title = "saved", done = true } }, state().todos)
    end)

    it("starts empty when nothing was saved", function()
      set_state({ todos = { { title = "old", done = false } } })
      assert.are.equal(0, dispatch("todo.load"))
      assert.are.same({}, state().todos)
    end)
  end)

  it("save writes the list to storage", function()
    set_state({ todos = { { title = "milk", done = false } } })
    dispatch("todo.save")
    assert.are.same({ { title = "milk", done = false } }, saved.todos)
  end)
end)
