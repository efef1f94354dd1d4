-- A shopping cart in `state.cart`, and a checkout that records orders through the host's storage.
--
--   state.cart = { items = { { sku = "apple", name = "Apple", price = 120, quantity = 2 } }, total = 240 }
--   state.last_order = "order-1"   -- after a checkout
--
-- Prices are whole cents (integers), so totals are exact. Bad payloads raise errors at the line of
-- the updater that refused them, and a refused dispatch leaves the state as it was.

-- Raises `message` at the line of the updater that called `check` when `condition` fails.
local function check(condition, message)
  if not condition then error(message, 2) end
end

local function is_count(value, least)
  return math.type(value) == "integer" and value >= least
end

local function cart_of(state)
  state.cart = state.cart or { items = {}, total = 0 }
  return state.cart
end

-- The index of the item with `sku`, or nil.
local function find(cart, sku)
  for index, item in ipairs(cart.items) do
    if item.sku == sku then return index end
  end
end

local function update_total(cart)
  local total = 0
  for _, item in ipairs(cart.items) do total = total + item.price * item.quantity end
  cart.total = total
end

return {
  name = "cart",
  version = 1,

  updaters = {
    -- payload: { sku = "apple", name = "Apple", price = 120, quantity = 2 } (name and quantity optional)
    add = function(state, p)
      check(type(p) == "table" and type(p.sku) == "string" and p.sku ~= "", "cart.add needs a sku")
      check(is_count(p.price, 0), "price must be a whole number of cents >= 0, got " .. tostring(p.price))
      local quantity = p.quantity or 1
      check(is_count(quantity, 1), "quantity must be an integer >= 1, got " .. tostring(quantity))
      local cart = cart_of(state)
      local index = find(cart, p.sku)
      if index then
        local item = cart.items[index]
        check(item.price == p.price, p.sku .. " is already in the cart at " .. item.price .. " cents")
        item.quantity = item.quantity + quantity
      else
        cart.items[#cart.items + 1] = { sku = p.sku, name = p.name or p.sku, price = p.price, quantity = quantity }
      end
      update_total(cart)
    end,

    -- payload: { sku = "apple" }
    remove = function(state, p)
      local cart = cart_of(state)
      local index = find(cart, p and p.sku)
      check(index, "no " .. tostring(p and p.sku) .. " in the cart")
      table.remove(cart.items, index)
      update_total(cart)
    end,

    -- payload: { sku = "apple", quantity = 3 }; 0 removes the item
    set_quantity = function(state, p)
      check(type(p) == "table" and is_count(p.quantity, 0), "quantity must be an integer >= 0, got " .. tostring(p and p.quantity))
      local cart = cart_of(state)
      local index = find(cart, p.sku)
      check(index, "no " .. tostring(p.sku) .. " in the cart")
      if p.quantity == 0 then
        table.remove(cart.items, index)
      else
        cart.items[index].quantity = p.quantity
      end
      update_total(cart)
    end,

    clear = function(state)
      state.cart = { items = {}, total = 0 }
    end,

    -- payload: { order = "order-3" }: the order is placed, so the cart starts over.
    checked_out = function(state, p)
      state.cart = { items = {}, total = 0 }
      state.last_order = p.order
    end,
  },

  side_effects = {
    -- Places an order for what is in the cart: appends it to the `orders` list in storage, empties the
    -- cart and returns { order, total, items, placed_at }. payload (optional): { customer = "ada" }
    checkout = function(ctx, p)
      local cart = ctx.state().cart
      if not cart or #cart.items == 0 then error("cannot check out an empty cart") end
      local orders = ctx.deps.storage.read { key = "orders" } or {}
      local count = 0
      for _, item in ipairs(cart.items) do count = count + item.quantity end
      local order = {
        id = "order-" .. (#orders + 1),
        customer = p and p.customer,
        items = cart.items,
        total = cart.total,
        placed_at = ctx.deps.clock.iso8601(),
      }
      orders[#orders + 1] = order
      ctx.deps.storage.write { key = "orders", value = orders }
      ctx.dispatch("cart.checked_out", { order = order.id })
      ctx.deps.log.info { message = "order placed", order = order.id, total = order.total }
      return { order = order.id, total = order.total, items = count, placed_at = order.placed_at }
    end,
  },

  interceptors = {
    -- Turns away a negative quantity before any updater sees it (the error names the item already).
    function(item, next)
      if (item.name == "cart.add" or item.name == "cart.set_quantity") and type(item.payload) == "table" then
        local quantity = item.payload.quantity
        if type(quantity) == "number" and quantity < 0 then
          error("quantity must not be negative, got " .. quantity)
        end
      end
      return next(item)
    end,
  },
}
