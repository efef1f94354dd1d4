-- Orders: validation and totals in Lua; the Swift service stores what is archived.
local function discount(subtotal)
  if subtotal >= 10000 then return subtotal // 10 end   -- 10 % off orders of 100.00 and more
  return 0
end

return {
  name = "orders",
  version = 1,
  updaters = {
    -- (state, {customer, lines = {{sku, quantity}}}): a new order, priced from the catalog.
    place = function(state, p)
      if type(p.customer) ~= "string" or p.customer == "" then error("an order needs a customer") end
      if type(p.lines) ~= "table" or #p.lines == 0 then error("an order needs at least one line") end
      local lines, subtotal = {}, 0
      for i, line in ipairs(p.lines) do
        local product = state.catalog[line.sku]
        if product == nil then error("line " .. i .. ": no product " .. tostring(line.sku)) end
        if math.type(line.quantity) ~= "integer" or line.quantity <= 0 then
          error("line " .. i .. ": the quantity must be a positive integer")
        end
        lines[i] = { sku = line.sku, quantity = line.quantity, cents = product.cents }
        subtotal = subtotal + product.cents * line.quantity
      end
      local off = discount(subtotal)
      state.next_id = state.next_id + 1
      state.orders[#state.orders + 1] = {
        id = state.next_id, customer = p.customer, lines = lines,
        subtotal = subtotal, discount = off, total = subtotal - off, archived = false,
      }
    end,
    -- (state, {id}): marks an order archived.
    mark_archived = function(state, p)
      for _, order in ipairs(state.orders) do
        if order.id == p.id then order.archived = true return end
      end
      error("no order " .. tostring(p.id))
    end,
  },
  side_effects = {
    -- (ctx, {id}): hands the order to the Swift archive (awaited), then marks it; returns its total.
    archive = function(ctx, p)
      for _, order in ipairs(ctx.state().orders) do
        if order.id == p.id then
          ctx.deps.archive.put(order)
          ctx.dispatch("orders.mark_archived", { id = p.id })
          return { id = p.id, total = order.total }
        end
      end
      error("no order " .. tostring(p.id))
    end,
  },
}
