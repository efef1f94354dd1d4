---@meta moonblade
-- Editor types for Moonblade plugins, written by `moonblade types`: do not edit.

---The store's state (dynamic: any table).
---@alias moonblade.State table

---What a side effect gets: the store and the Swift functions the host exposes.
---@class moonblade.Context
---@field state fun(): moonblade.State A copy of the state now.
---@field dispatch fun(name: string, payload?: any): any Runs an item to completion; a side effect's result.
---@field deps moonblade.Deps The host's Swift functions, each awaited.

---@class moonblade.Deps
---@field clock moonblade.deps.clock
---@field log moonblade.deps.log
---@field storage moonblade.deps.storage

---@class moonblade.deps.clock
---@field iso8601 fun(): string
---@field now fun(): number

---@class moonblade.deps.log
---@field critical fun(arguments: string)
---@field debug fun(arguments: string)
---@field error fun(arguments: string)
---@field info fun(arguments: string)
---@field notice fun(arguments: string)
---@field trace fun(arguments: string)
---@field warning fun(arguments: string)

---@class moonblade.deps.storage
---@field read fun(arguments: moonblade.types.StorageRequest): any?
---@field write fun(arguments: moonblade.types.StorageRequest)

---@class moonblade.types.StorageRequest
---@field key string
---@field value any?

---An item as interceptors see it.
---@class moonblade.Item
---@field name string `plugin.item`
---@field kind "updater"|"side_effect"
---@field payload any A copy of the payload.

---An observer rule: one trigger and what it dispatches (a name, or { name, payload or function }).
---@class moonblade.Rule
---@field on_start? boolean|(string|table)[]
---@field on_dispatch? string
---@field on_state_change? fun(old: moonblade.State, new: moonblade.State): boolean
---@field on_notification? string
---@field dispatch? (string|table)[]

---What `plugin.lua` returns.
---@class moonblade.Plugin
---@field name? string The plugin's name (default: its folder's).
---@field version? integer Raise it, with `migrate`, when the state's shape changes.
---@field updaters? table<string, fun(state: moonblade.State, payload: any): moonblade.State?>
---@field side_effects? table<string, fun(ctx: moonblade.Context, payload: any): any>
---@field interceptors? (fun(item: moonblade.Item, next: fun(item: moonblade.Item)))[]
---@field observers? moonblade.Rule[]
---@field migrate? fun(state: moonblade.State, from_version: integer): moonblade.State?

---Loads `name.lua` (dots for subfolders) from the plugin's own folder, once per version.
---@param name string
---@return any
function require(name) end
