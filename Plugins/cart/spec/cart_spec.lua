-- Specs for the cart plugin: run with `moonblade test Plugins/cart` or `swift test`.

local apple = { sku = "apple", name = "Apple", price = 120, quantity = 2 }
local pear = { sku = "pear", name = "Pear", price = 90 }

describe("cart", function()
  local saved -- what the stubbed storage holds, by key
  local logged

  before_each(function()
    set_state({})
    saved, logged = {}, {}
    stub("storage.read", function(args) return saved[args.key] end)
    stub("storage.write", function(args) saved[args.key] = args.value end)
    stub("clock.iso8601", function() return "2026-11-21T15:00:00Z" end)
    stub("log.info", function(entry) logged[#logged + 1] = entry end)
  end)

  describe("add", function()
    it("puts an item in the cart and keeps the total in cents", function()
      dispatch("cart.add", apple)
      assert.are.same({ items = { apple }, total = 240 }, state().cart)
    end)

    it("names an item by its sku and counts one when the payload does not say", function()
      dispatch("cart.add", { sku = "pear", price = 90 })
      assert.are.same({ { sku = "pear", name = "pear", price = 90, quantity = 1 } }, state().cart.items)
    end)

    it("adds to the quantity of an item already in the cart", function()
      dispatch("cart.add", apple)
      dispatch("cart.add", { sku = "apple", price = 120, quantity = 3 })
      assert.are.equal(5, state().cart.items[1].quantity)
      assert.are.equal(600, state().cart.total)
    end)

    it("refuses the same sku at another price and leaves the cart as it was", function()
      dispatch("cart.add", apple)
      local before = state()
      assert.has_error(function() dispatch("cart.add", { sku = "apple", price = 99 }) end, "apple is already in the cart at 120 cents")
      assert.are.same(before, state())
    end)

    it("refuses a payload without a sku", function()
      assert.has_error(function() dispatch("cart.add", { price = 100 }) end, "cart.add needs a sku")
      assert.are.same({}, state())
    end)

    it("refuses a price that is not whole cents", function()
      assert.has_error(function() dispatch("cart.add", { sku = "apple", price = 1.5 }) end, "price must be a whole number of cents >= 0, got 1.5")
      assert.error_matches(function() dispatch("cart.add", { sku = "apple", price = -1 }) end, "price must be a whole number of cents", nil, true)
      assert.are.same({}, state())
    end)

    it("refuses a quantity of zero", function()
      assert.has_error(function() dispatch("cart.add", { sku = "apple", price = 120, quantity = 0 }) end, "quantity must be an integer >= 1, got 0")
    end)
  end)

  describe("remove", function()
    it("takes the item out and lowers the total", function()
      dispatch("cart.add", apple)
      dispatch("cart.add", pear)
      dispatch("cart.remove", { sku = "apple" })
      assert.are.same({ items = { { sku = "pear", name = "Pear", price = 90, quantity = 1 } }, total = 90 }, state().cart)
    end)

    it("refuses a sku that is not in the cart", function()
      dispatch("cart.add", apple)
      assert.has_error(function() dispatch("cart.remove", { sku = "kiwi" }) end, "no kiwi in the cart")
      assert.are.equal(240, state().cart.total)
    end)
  end)

  describe("set_quantity", function()
    it("sets the quantity and the total follows", function()
      dispatch("cart.add", apple)
      dispatch("cart.set_quantity", { sku = "apple", quantity = 5 })
      assert.are.equal(5, state().cart.items[1].quantity)
      assert.are.equal(600, state().cart.total)
    end)

    it("removes the item at zero", function()
      dispatch("cart.add", apple)
      dispatch("cart.set_quantity", { sku = "apple", quantity = 0 })
      assert.are.same({ items = {}, total = 0 }, state().cart)
    end)

    it("refuses a sku that is not in the cart", function()
      assert.has_error(function() dispatch("cart.set_quantity", { sku = "kiwi", quantity = 1 }) end, "no kiwi in the cart")
    end)
  end)

  describe("the quantity interceptor", function()
    it("turns away a negative quantity before the updater sees it", function()
      dispatch("cart.add", apple)
      local before = state()
      assert.has_error(
        function() dispatch("cart.set_quantity", { sku = "apple", quantity = -1 }) end,
        "quantity must not be negative, got -1")
      assert.has_error(
        function() dispatch("cart.add", { sku = "pear", price = 90, quantity = -3 }) end,
        "quantity must not be negative, got -3")
      assert.are.same(before, state())
    end)

    it("lets other items through untouched", function()
      dispatch("cart.add", apple)
      dispatch("cart.clear")
      assert.are.same({ items = {}, total = 0 }, state().cart)
    end)
  end)

  describe("checkout", function()
    it("records the order, empties the cart and returns a summary", function()
      dispatch("cart.add", apple)
      dispatch("cart.add", pear)
      local summary = dispatch("cart.checkout", { customer = "ada" })

      assert.are.same({ order = "order-1", total = 330, items = 3, placed_at = "2026-11-21T15:00:00Z" }, summary)
      assert.are.same({
        {
          id = "order-1",
          customer = "ada",
          items = { apple, { sku = "pear", name = "Pear", price = 90, quantity = 1 } },
          total = 330,
          placed_at = "2026-11-21T15:00:00Z",
        },
      }, saved.orders)
      assert.are.same({ items = {}, total = 0 }, state().cart)
      assert.are.equal("order-1", state().last_order)
      assert.are.equal("order placed", logged[1].message)
    end)

    it("numbers orders after those already stored", function()
      saved.orders = { { id = "order-1", total = 10 } }
      dispatch("cart.add", pear)
      local summary = dispatch("cart.checkout")
      assert.are.equal("order-2", summary.order)
      assert.are.equal(2, #saved.orders)
      assert.is_true(saved.orders[2].customer == nil)
    end)

    it("refuses an empty cart and stores nothing", function()
      local write = stub("storage.write", function(args) saved[args.key] = args.value end)
      assert.has_error(function() dispatch("cart.checkout") end, "cannot check out an empty cart")
      assert.are.equal(0, #write.calls)
      assert.is_true(saved.orders == nil)
    end)
  end)
end)
