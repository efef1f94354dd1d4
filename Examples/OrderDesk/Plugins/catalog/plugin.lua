-- The catalog: products and their prices.
return {
  name = "catalog",
  version = 1,
  updaters = {
    -- (state, {sku, name, cents}): adds a product or changes its price.
    set_price = function(state, p)
      if type(p.sku) ~= "string" or p.sku == "" then error("a product needs a sku") end
      if math.type(p.cents) ~= "integer" or p.cents <= 0 then error("a price is a positive number of cents") end
      state.catalog[p.sku] = { name = p.name or p.sku, cents = p.cents }
    end,
  },
}
