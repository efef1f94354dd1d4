---@meta moonblade
-- Editor types for Moonblade plugins, written by `moonblade types`: do not edit.

---The store's state (dynamic: any table).
---@alias moonblade.State table

---The items plugins can dispatch.
---@alias moonblade.ItemName "cart.add"|"cart.checked_out"|"cart.checkout"|"cart.clear"|"cart.remove"|"cart.set_quantity"|"counter.increment"|"counter.reset"|"todo.add"|"todo.clear_done"|"todo.load"|"todo.replace"|"todo.save"|"todo.toggle"

---`ctx.dispatch`'s options: run the whole dispatch again while it fails.
---@class moonblade.DispatchOptions
---@field retries? integer How many times to try again (default 0).
---@field delay? number Seconds between two tries (default 0).

---What a side effect gets: the store and the Swift functions the host exposes.
---@class moonblade.Context
---@field state fun(): moonblade.State The state now, as a read-only view (no copy): read it again after an await to see what changed.
---@field dispatch fun(name: moonblade.ItemName, payload?: any, options?: moonblade.DispatchOptions): any Runs an item to completion and returns a side effect's result; a failure is raised here.
---@field deps moonblade.Deps The host's Swift functions, each awaited.

---The library every plugin and spec sees as the global `moonblade` (read-only).
---@class moonblade.Library
---@field array fun(): table An empty table that stays a JSON array ([]) when it reaches the state or JSON.
---@field object fun(): table An empty table that stays a JSON object ({}) when it reaches the state or JSON.
---@field null lightuserdata JSON's null where a table must keep it (a nil would remove the key).
---@type moonblade.Library
moonblade = nil

---@class moonblade.Deps
---@field clock moonblade.deps.clock
---@field log moonblade.deps.log
---@field storage moonblade.deps.storage

---@class moonblade.deps.clock
---@field iso8601 fun(): string
---@field now fun(): number

---@class moonblade.deps.log
---@field critical fun(arguments: string|moonblade.types.LogEntry)
---@field debug fun(arguments: string|moonblade.types.LogEntry)
---@field error fun(arguments: string|moonblade.types.LogEntry)
---@field info fun(arguments: string|moonblade.types.LogEntry)
---@field notice fun(arguments: string|moonblade.types.LogEntry)
---@field trace fun(arguments: string|moonblade.types.LogEntry)
---@field warning fun(arguments: string|moonblade.types.LogEntry)

---@class moonblade.deps.storage
---@field read fun(arguments: moonblade.types.StorageRequest): any?
---@field write fun(arguments: moonblade.types.StorageRequest)

---@class moonblade.types.LogEntry
---@field message string
---@field [string] any The fields past the first the editor types could not read.

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
---@field on_start? boolean|(moonblade.ItemName|table)[]
---@field on_dispatch? moonblade.ItemName
---@field on_state_change? fun(old: moonblade.State, new: moonblade.State): boolean
---@field on_notification? string
---@field dispatch? (moonblade.ItemName|table)[]

---What `plugin.lua` returns: `---@type moonblade.Plugin` on `local plugin = { ... }`, then `return plugin`.
---@class moonblade.Plugin
---@field name? string The plugin's name (default: its folder's).
---@field version? integer Raise it, with `migrate`, when the state's shape changes.
---@field updaters? table<string, fun(state: moonblade.State, payload: any): moonblade.State?>
---@field side_effects? table<string, fun(ctx: moonblade.Context, payload: any): any>
---@field interceptors? (fun(item: moonblade.Item, next: fun(item?: moonblade.Item)))[] `next()` passes the item on as it is; not calling it drops it.
---@field observers? moonblade.Rule[]
---@field migrate? fun(state: moonblade.State, from_version: integer): moonblade.State?

---Loads `name.lua` (dots for subfolders) from the plugin's own folder, once per version.
---@param name string
---@return any
function require(name) end
